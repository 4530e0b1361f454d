//! Element-wise kernels: any expression of [`super::expr`] in one pass (two expressions, two
//! render targets), and the constructors that depend only on the index.

use super::expr::Expr;
use super::{Kernel, Template, INPUT_NAMES};

/// The identity (ones on the diagonal of any shape).
pub const IDENTITY: Kernel = shader_kernel!("elementwise", "identity", &[]);
/// The diagonal of a square matrix, as a column vector.
pub const DIAGONAL: Kernel = shader_kernel!("elementwise", "diagonal", &["a"]);

/// The expression functions every element-wise kernel puts before its body, (WGSL, GLSL).
pub(super) const FUNCTIONS: (&str, &str) = (
    include_str!("../../shaders/elementwise/functions.wgsl"),
    include_str!("../../shaders/elementwise/functions.glsl"),
);

/// The element-wise kernel of `expr` (see [`Expr`]): one pass, whatever the expression.
pub fn map(expr: &Expr) -> Kernel {
    let code = expr.shader();
    Kernel {
        name: format!("map:{code}").into(),
        inputs: &INPUT_NAMES[..expr.input_count()],
        wgsl: functions_and(
            template!("elementwise/map.wgsl").register("expr", &code),
            FUNCTIONS.0,
        )
        .into(),
        glsl: functions_and(
            template!("elementwise/map.glsl").register("expr", &code),
            FUNCTIONS.1,
        )
        .into(),
        outputs: 1,
        compute: None,
    }
}

/// Two element-wise expressions over the same inputs, written to two outputs in one pass; the
/// parameters of `second` follow those of `first`.
pub fn map2(first: &Expr, second: &Expr) -> Kernel {
    let mut next_param = 0;
    let (c1, c2) = (
        first.shader_from(&mut next_param),
        second.shader_from(&mut next_param),
    );
    let inputs = first.input_count().max(second.input_count());
    let fill = |body: Template, functions: &str| {
        functions_and(body.register("expr", &c1).register("expr2", &c2), functions)
    };
    Kernel {
        name: format!("map2:{c1};{c2}").into(),
        inputs: &INPUT_NAMES[..inputs],
        wgsl: fill(template!("elementwise/map2.wgsl"), FUNCTIONS.0).into(),
        glsl: fill(template!("elementwise/map2.glsl"), FUNCTIONS.1).into(),
        outputs: 2,
        compute: None,
    }
}

/// The expression functions, then a kernel body that calls them.
fn functions_and(body: Template, functions: &str) -> String {
    format!("{functions}\n{}", body.complete())
}
