//! A GPU program as data: which kernel, which inputs, which output shape.
//!
//! A [`Kernel`] holds only its math, as a short WGSL body and its GLSL twin in `shaders/`; the
//! shared prelude (`shaders/prelude.*`, `shaders/input.*`) supplies the full-screen triangle,
//! the shape uniforms and the texel fetch helpers. A [`Program`] is one run of a kernel on
//! concrete shapes. Backends turn programs into pipelines; kernels never see wgpu or glow.

use std::borrow::Cow;

use crate::layout::Layout;

/// Most inputs a kernel may read.
pub const MAX_INPUTS: usize = 6;
/// Slots of the shape uniform: the output, the inputs, padding to a power of two.
pub const SHAPE_SLOTS: usize = 8;
/// Scalar parameters a run may pass (`param(i)` in a shader).
pub const MAX_PARAMS: usize = 8;
/// The names inputs get, in order: kernels with n inputs use the first n.
pub const INPUT_NAMES: [&str; MAX_INPUTS] = ["a", "b", "c", "d", "e", "f"];

/// A fragment-shader kernel, described once for every backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// Unique name, also the key of the backends' pipeline caches: two kernels with the same
    /// name must have the same source.
    pub name: Cow<'static, str>,
    /// Input names; input `a` gets helpers `a_texel(x, y)`, `a_rows()`, `a_cols()`.
    pub inputs: &'static [&'static str],
    /// WGSL body defining `fn kernel(texel: vec2<i32>) -> vec4<f32>`.
    pub wgsl: Cow<'static, str>,
    /// GLSL ES 3.00 body defining `vec4 kernel(ivec2 texel)`.
    pub glsl: Cow<'static, str>,
    /// Render targets written in one pass: 1, or N >= 2 for a kernel returning
    /// `array<vec4<f32>, N>` (GLSL: filling `out vec4 r[N]`).
    pub outputs: usize,
    /// How a compute kernel (WebGPU only; `glsl` is empty) is dispatched. `None` for fragment
    /// kernels.
    pub compute: Option<Compute>,
}

/// How a compute kernel is dispatched, and what it gets beside its textures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compute {
    /// Output texels one workgroup covers, (columns, texel rows): the dispatch is the output's
    /// size divided by this, rounded up.
    pub per_group: (usize, usize),
    /// 32-bit words of zeroed storage (`scratch`, binding 8) each run gets; 0 for none.
    pub scratch_words: usize,
}

/// A kernel whose body is a file in `shaders/`, compiled into the binary.
macro_rules! shader_kernel {
    ($name:literal, $inputs:expr) => {
        Kernel {
            name: Cow::Borrowed($name),
            inputs: $inputs,
            wgsl: Cow::Borrowed(include_str!(concat!("../shaders/", $name, ".wgsl"))),
            glsl: Cow::Borrowed(include_str!(concat!("../shaders/", $name, ".glsl"))),
            outputs: 1,
            compute: None,
        }
    };
}

impl Kernel {
    /// The complete WGSL module: prelude, one accessor block per input, body.
    pub fn wgsl_source(&self) -> String {
        let mut src = String::from(include_str!("../shaders/prelude.wgsl"));
        self.push_inputs(&mut src, include_str!("../shaders/input.wgsl"));
        src.push('\n');
        src.push_str(&self.wgsl);
        if self.compute.is_some() {
            src.push_str(include_str!("../shaders/main_compute.wgsl"));
        } else if self.outputs >= 2 {
            let n = self.outputs;
            let fields: Vec<String> = (0..n)
                .map(|i| format!("    @location({i}) o{i}: vec4<f32>,"))
                .collect();
            let values: Vec<String> = (0..n).map(|i| format!("r[{i}]")).collect();
            src.push_str(
                &include_str!("../shaders/main_multi.wgsl")
                    .replace("{count}", &n.to_string())
                    .replace("{fields}", &fields.join("\n"))
                    .replace("{values}", &values.join(", ")),
            );
        } else {
            src.push_str(include_str!("../shaders/main.wgsl"));
        }
        src
    }

    /// The complete GLSL ES 3.00 fragment shader: prelude, accessors, body, `main`.
    pub fn glsl_source(&self) -> String {
        let mut src = String::from(include_str!("../shaders/prelude.glsl"));
        self.push_inputs(&mut src, include_str!("../shaders/input.glsl"));
        src.push('\n');
        src.push_str(&self.glsl);
        if self.outputs >= 2 {
            let n = self.outputs;
            let outs: Vec<String> = (0..n)
                .map(|i| format!("layout(location = {i}) out vec4 out_{i};"))
                .collect();
            let assign: Vec<String> = (0..n).map(|i| format!("    out_{i} = r[{i}];")).collect();
            src.push_str(
                &include_str!("../shaders/main_multi.glsl")
                    .replace("{count}", &n.to_string())
                    .replace("{outs}", &outs.join("\n"))
                    .replace("{assign}", &assign.join("\n")),
            );
        } else {
            src.push_str(include_str!("../shaders/main.glsl"));
        }
        src
    }

    /// The GLSL ES 3.00 vertex shader shared by every kernel.
    pub fn glsl_vertex_source() -> &'static str {
        include_str!("../shaders/vertex.glsl")
    }

    fn push_inputs(&self, src: &mut String, template: &str) {
        for (i, name) in self.inputs.iter().enumerate() {
            let slot = (i + 1).to_string();
            src.push_str(&template.replace("{name}", name).replace("{slot}", &slot));
        }
    }
}

/// One run of a kernel: the kernel, the shapes of its inputs and output, its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The kernel to run.
    pub kernel: Kernel,
    /// Shapes of the inputs, in the order of `kernel.inputs`.
    pub inputs: Vec<Layout>,
    /// Shape of the output; one fragment runs per output texel.
    pub output: Layout,
    /// Scalar parameters, read in shaders as `param(i)`.
    pub params: [f32; MAX_PARAMS],
}

/// The uniform block every kernel reads, laid out as the shaders declare it (std140-compatible).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Uniforms {
    /// `(rows, cols, width, height)` of the output (slot 0) and of each input (1..).
    pub shapes: [[i32; 4]; SHAPE_SLOTS],
    /// `param(i)` is `params[i / 4][i % 4]`.
    pub params: [[f32; 4]; MAX_PARAMS / 4],
}

impl Program {
    /// A run of `kernel` without parameters.
    pub fn new(kernel: Kernel, inputs: Vec<Layout>, output: Layout) -> Self {
        debug_assert!(kernel.inputs.len() <= MAX_INPUTS);
        Program {
            kernel,
            inputs,
            output,
            params: [0.0; MAX_PARAMS],
        }
    }

    /// The same run with parameters `params` (the rest zero).
    pub fn with_params(mut self, params: &[f32]) -> Self {
        self.params[..params.len()].copy_from_slice(params);
        self
    }

    /// The uniform block of this run.
    pub fn uniforms(&self) -> Uniforms {
        debug_assert_eq!(self.inputs.len(), self.kernel.inputs.len());
        let mut shapes = [[0; 4]; SHAPE_SLOTS];
        for (slot, l) in std::iter::once(&self.output)
            .chain(&self.inputs)
            .enumerate()
        {
            shapes[slot] = [l.rows, l.cols, l.width(), l.height()].map(|v| v as i32);
        }
        let mut params = [[0.0; 4]; MAX_PARAMS / 4];
        for (i, &p) in self.params.iter().enumerate() {
            params[i / 4][i % 4] = p;
        }
        Uniforms { shapes, params }
    }
}

/// `C = A * B`: inputs `a` (m x k) and `b` (k x n), output m x n.
pub const MATMUL: Kernel = shader_kernel!("matmul", &["a", "b"]);
/// Most render targets [`matmul_fast`] writes in one pass.
pub const FAST_TARGETS: usize = 8;

/// `C = A * B`, the fast fragment kernel: each fragment computes `targets` output texels, one
/// per render target, reusing its A texels for all of them. The output of the run is one slab
/// of `ceil(n / targets)` columns per target; the slabs are then copied side by side into C.
pub fn matmul_fast(targets: usize) -> Kernel {
    let t = targets.to_string();
    let accs: Vec<String> = (0..targets).map(|i| format!("acc{i}")).collect();
    let fill = |src: &str| {
        repeat_lines(src, "{t}", targets)
            .replace("{T}", &t)
            .replace("{ACCS}", &accs.join(", "))
    };
    Kernel {
        name: format!("matmul_fast{t}").into(),
        inputs: &["a", "b"],
        wgsl: fill(include_str!("../shaders/matmul_fast.wgsl")).into(),
        glsl: fill(include_str!("../shaders/matmul_fast.glsl")).into(),
        outputs: targets,
        compute: None,
    }
}

/// Each line of `src` that contains `marker`, written out `count` times with the marker
/// replaced by 0, 1, ...: how a kernel unrolls what it does per render target or per texel,
/// so that its registers are named variables rather than arrays indexed at run time.
pub fn repeat_lines(src: &str, marker: &str, count: usize) -> String {
    let mut out = String::with_capacity(src.len() * 2);
    for line in src.lines() {
        if line.contains(marker) {
            for i in 0..count {
                out.push_str(&line.replace(marker, &i.to_string()));
                out.push('\n');
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Depths of the inner-dimension chunk [`matmul_tiled`] takes (a multiple of 8).
pub const TILED_CHUNKS: [usize; 3] = [8, 16, 32];

/// Bytes of workgroup memory [`matmul_tiled`] declares for chunks of `bk`.
pub fn tiled_workgroup_bytes(bk: usize) -> usize {
    2 * bk * 32 * 16
}

/// `C = A * B` on the compute path: workgroups of 16 x 16 threads, each computing 128 x 128
/// elements of C; chunks of `bk` (a multiple of 8) of the inner dimension pass through
/// workgroup memory; 8 x 8 outputs per thread in registers.
pub fn matmul_tiled(bk: usize) -> Kernel {
    debug_assert!(bk.is_multiple_of(8) && bk > 0);
    Kernel {
        name: format!("matmul_tiled_{bk}").into(),
        inputs: &["a", "b"],
        wgsl: repeat_lines(include_str!("../shaders/matmul_tiled.wgsl"), "{e}", bk / 8)
            .replace("{BK}", &bk.to_string())
            .into(),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (128, 32),
            scratch_words: 0,
        }),
    }
}

/// `y = A x` on the compute path: 32 rows per workgroup, partial sums added in workgroup
/// memory, one dispatch.
pub const MATVEC_TILED: Kernel = Kernel {
    name: Cow::Borrowed("matvec_tiled"),
    inputs: &["a", "b"],
    wgsl: Cow::Borrowed(include_str!("../shaders/matvec_tiled.wgsl")),
    glsl: Cow::Borrowed(""),
    outputs: 1,
    compute: Some(Compute {
        per_group: (1, 8),
        scratch_words: 0,
    }),
};

/// Most texels of A each thread of [`lcp_jacobi`] keeps in registers.
pub const LCP_MAX_REGISTERS: usize = 16;

/// Workgroup memory of [`lcp_jacobi`] besides x: the partial sums.
pub const LCP_PARTIAL_BYTES: usize = 256 * 16;

/// Projected Jacobi for the LCP, every iteration in one dispatch: inputs A, b, x0; parameters
/// omega and the iteration count. `x_words` (a multiple of 4, at least 4 texel rows' worth and
/// `registers * 256 / block_rows`) words of x in workgroup memory; blocks of `block_rows` (1, 2
/// or 4) texel rows; `registers` texels of A per thread kept in registers (0 for none);
/// `workgroups` workgroups for `height` texel rows of x. With `friction`, the wall's contact
/// LCP: inputs d = 1 / diag(A) and e = mu too, and the friction projection (see the shader);
/// without, d and e are bound but unused.
pub fn lcp_jacobi(
    x_words: usize,
    block_rows: usize,
    registers: usize,
    height: usize,
    workgroups: usize,
    friction: bool,
) -> Kernel {
    debug_assert!([1, 2, 4].contains(&block_rows) && registers <= LCP_MAX_REGISTERS);
    Kernel {
        name: format!("lcp_jacobi_{x_words}_{block_rows}_{registers}_{friction}").into(),
        inputs: &["a", "b", "c", "d", "e"],
        wgsl: repeat_lines(
            &repeat_lines(
                &repeat_lines(include_str!("../shaders/lcp_jacobi.wgsl"), "{m}", registers),
                "{p}",
                256 / block_rows / 16 - 1,
            ),
            "{q}",
            16,
        )
        .replace("{XW}", &x_words.to_string())
        .replace("{BR}", &block_rows.to_string())
        .replace("{REG}", &registers.to_string())
        .replace("{FRICTION}", &friction.to_string())
        .into(),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (1, height.div_ceil(workgroups.max(1))),
            scratch_words: 1 + 2 * x_words,
        }),
    }
}
/// `C = A^T * B`: inputs `a` (k x m) and `b` (k x n), output m x n.
pub const TR_MUL: Kernel = shader_kernel!("tr_mul", &["a", "b"]);
/// `C = A * B^T`: inputs `a` (m x k) and `b` (n x k), output m x n.
pub const MUL_TR: Kernel = shader_kernel!("mul_tr", &["a", "b"]);
/// `T = A^T`.
pub const TRANSPOSE: Kernel = shader_kernel!("transpose", &["a"]);
/// The identity (ones on the diagonal of any shape).
pub const IDENTITY: Kernel = shader_kernel!("identity", &[]);
/// The diagonal of a square matrix, as a column vector.
pub const DIAGONAL: Kernel = shader_kernel!("diagonal", &["a"]);
/// Blocked matrix-vector product, first pass: partial sums over blocks of `param(0)` columns.
pub const MATVEC_PARTIAL: Kernel = shader_kernel!("matvec_partial", &["a", "b"]);
/// Blocked matrix-vector product, second pass: the sum across each row of partial sums.
pub const SUM_COLS: Kernel = shader_kernel!("sum_cols", &["a"]);

/// One projected Jacobi iteration of the wall's contact LCP (see `src/physics/lcp.rs`):
/// inputs matrix, neighbour lists, x, b, 1/diag, mu; params omega, blocks per contact, dense.
pub const CONTACT_JACOBI: Kernel =
    shader_kernel!("contact_jacobi", &["a", "b", "c", "d", "e", "f"]);

/// What a reduction computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    /// The sum of the elements.
    Sum,
    /// The sum of `a .* b` (first pass only; later passes are `Sum`).
    Dot,
    /// The largest |element|; NaN if any element is NaN.
    MaxAbs,
}

impl Reduction {
    fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Dot => "dot",
            Reduction::MaxAbs => "max_abs",
        }
    }

    /// How `acc` takes in one texel, and how a texel's four components combine: the same text
    /// in WGSL and GLSL.
    fn combine(self) -> (&'static str, &'static str) {
        const SUM4: &str = "(v.x + v.y) + (v.z + v.w)";
        match self {
            Reduction::Sum => ("acc + a_texel(x, y)", SUM4),
            Reduction::Dot => ("acc + a_texel(x, y) * b_texel(x, y)", SUM4),
            // NaN must survive GPU max, which drops it; all terms are >= 0, so the sum of a
            // texel's components is NaN exactly when one of them is.
            Reduction::MaxAbs => (
                "keep_nan(acc, keep_nan(a_texel(x, y), max(acc, abs(a_texel(x, y)))))",
                "nan_or((v.x + v.y) + (v.z + v.w), max(max(v.x, v.y), max(v.z, v.w)))",
            ),
        }
    }

    /// One pass over 4x4 blocks of texels.
    pub fn pass(self) -> Kernel {
        let inputs: &'static [&'static str] = if self == Reduction::Dot {
            &["a", "b"]
        } else {
            &["a"]
        };
        let combine = self.combine().0;
        Kernel {
            name: Cow::Owned(format!("reduce_{}", self.name())),
            inputs,
            wgsl: include_str!("../shaders/reduce.wgsl")
                .replace("{combine}", combine)
                .into(),
            glsl: include_str!("../shaders/reduce.glsl")
                .replace("{combine}", combine)
                .into(),
            outputs: 1,
            compute: None,
        }
    }

    /// The last pass: the four components of texel (0, 0) combined into element (0, 0).
    pub fn last(self) -> Kernel {
        let combine = self.combine().1;
        Kernel {
            name: Cow::Owned(format!("combine_{}", self.name())),
            inputs: &["a"],
            wgsl: include_str!("../shaders/combine_components.wgsl")
                .replace("{combine}", combine)
                .into(),
            glsl: include_str!("../shaders/combine_components.glsl")
                .replace("{combine}", combine)
                .into(),
            outputs: 1,
            compute: None,
        }
    }
}

/// The element-wise kernel of `expr` (see [`crate::expr`]): one pass, whatever the expression.
pub fn map(expr: &crate::expr::Expr) -> Kernel {
    let code = expr.shader();
    Kernel {
        name: format!("map:{code}").into(),
        inputs: &INPUT_NAMES[..expr.input_count()],
        wgsl: functions_and(
            include_str!("../shaders/map.wgsl"),
            include_str!("../shaders/functions.wgsl"),
        )
        .replace("{expr}", &code)
        .into(),
        glsl: functions_and(
            include_str!("../shaders/map.glsl"),
            include_str!("../shaders/functions.glsl"),
        )
        .replace("{expr}", &code)
        .into(),
        outputs: 1,
        compute: None,
    }
}

/// Two element-wise expressions over the same inputs, written to two outputs in one pass; the
/// parameters of `second` follow those of `first`.
pub fn map2(first: &crate::expr::Expr, second: &crate::expr::Expr) -> Kernel {
    let mut next_param = 0;
    let (c1, c2) = (
        first.shader_from(&mut next_param),
        second.shader_from(&mut next_param),
    );
    let inputs = first.input_count().max(second.input_count());
    let fill = |body: &str, functions: &str| {
        functions_and(body, functions)
            .replace("{expr2}", &c2)
            .replace("{expr}", &c1)
    };
    Kernel {
        name: format!("map2:{c1};{c2}").into(),
        inputs: &INPUT_NAMES[..inputs],
        wgsl: fill(
            include_str!("../shaders/map2.wgsl"),
            include_str!("../shaders/functions.wgsl"),
        )
        .into(),
        glsl: fill(
            include_str!("../shaders/map2.glsl"),
            include_str!("../shaders/functions.glsl"),
        )
        .into(),
        outputs: 2,
        compute: None,
    }
}

/// The expression functions, then a kernel body that calls them.
fn functions_and(body: &str, functions: &str) -> String {
    format!("{functions}\n{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_have_one_accessor_block_per_input() {
        let wgsl = MATMUL.wgsl_source();
        assert!(wgsl.contains("@group(0) @binding(1) var a_tex: texture_2d<f32>;"));
        assert!(wgsl.contains("@group(0) @binding(2) var b_tex: texture_2d<f32>;"));
        assert!(wgsl.contains("fn kernel(texel: vec2<i32>) -> vec4<f32>"));
        assert!(!wgsl.contains("{name}") && !wgsl.contains("{slot}"));
        let glsl = MATMUL.glsl_source();
        assert!(glsl.starts_with("#version 300 es"));
        assert!(glsl.contains("uniform sampler2D b_tex;"));
        assert!(glsl.contains("int a_cols() { return u_shapes[1].y; }"));
        // main() comes after the body so that `kernel` is declared before use.
        assert!(glsl.find("vec4 kernel(").unwrap() < glsl.find("void main()").unwrap());
    }

    #[test]
    fn repeated_lines_unroll_and_leave_no_placeholder() {
        assert_eq!(
            repeat_lines("a\nx{t} = {t};\nb", "{t}", 3),
            "a\nx0 = 0;\nx1 = 1;\nx2 = 2;\nb\n"
        );
        assert_eq!(repeat_lines("x{t}\n", "{t}", 0), "");
        for t in 2..=FAST_TARGETS {
            let k = matmul_fast(t);
            let (wgsl, glsl) = (k.wgsl_source(), k.glsl_source());
            for src in [&wgsl, &glsl] {
                assert!(!src.contains("{t}") && !src.contains("{T}") && !src.contains("{ACCS}"));
                assert!(
                    src.contains(&format!("acc{}", t - 1)) && !src.contains(&format!("acc{t} "))
                );
            }
            assert!(wgsl.contains(&format!("@location({}) o{}: vec4<f32>", t - 1, t - 1)));
            assert!(wgsl.contains(&format!("-> array<vec4<f32>, {t}>")));
            assert!(glsl.contains(&format!(
                "layout(location = {}) out vec4 out_{};",
                t - 1,
                t - 1
            )));
        }
        for bk in TILED_CHUNKS {
            let src = matmul_tiled(bk).wgsl_source();
            assert!(!src.contains("{e}") && !src.contains("{BK}"));
            assert_eq!(src.matches("fetch_a(li + 256 *").count(), 2 * bk / 8);
        }
        let src = lcp_jacobi(512, 4, 7, 100, 25, true).wgsl_source();
        assert!(!src.contains("{m}") && !src.contains("{XW}") && !src.contains("{REG}"));
        assert!(src.contains("const FRICTION: bool = true;"));
        assert!(!src.contains("{p}") && !src.contains("{q}") && src.contains("lane + 15]"));
        assert!(src.contains("var ra6 = ") && !src.contains("var ra7 = "));
        assert_eq!(
            lcp_jacobi(512, 4, 0, 100, 25, false)
                .compute
                .unwrap()
                .per_group,
            (1, 4)
        );
    }

    #[test]
    fn shape_uniform_lists_output_then_inputs() {
        let p = Program::new(
            MATMUL,
            vec![Layout { rows: 13, cols: 29 }, Layout { rows: 29, cols: 7 }],
            Layout { rows: 13, cols: 7 },
        )
        .with_params(&[1.5, -2.0, 0.0, 0.0, 7.0]);
        let u = p.uniforms();
        assert_eq!(
            &u.shapes[..4],
            &[[13, 7, 7, 4], [13, 29, 29, 4], [29, 7, 7, 8], [0, 0, 0, 0]]
        );
        assert_eq!(u.params, [[1.5, -2.0, 0.0, 0.0], [7.0, 0.0, 0.0, 0.0]]);
        assert_eq!(std::mem::size_of::<Uniforms>(), 8 * 16 + 2 * 16);
    }
}
