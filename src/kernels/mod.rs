//! A GPU program as data: which kernel, which inputs, which output shape.
//!
//! A [`Kernel`] holds only its math, as a short WGSL body and its GLSL twin in `shaders/`; the
//! shared prelude (`shaders/prelude.*`, `shaders/input.*`) supplies the full-screen triangle,
//! the shape uniforms and the texel fetch helpers. A [`Program`] is one run of a kernel on
//! concrete shapes. Backends turn programs into pipelines; kernels never see wgpu or glow.
//!
//! The folder is the kernel list, grouped as `shaders/` is: `products.rs` ([`MATMUL`],
//! [`matmul_fast`], [`matmul_tiled`], ...), `elementwise.rs` ([`map`], with the expression
//! language of `expr.rs` ([`Expr`]) and `functions.rs` ([`Func`])), `reduce.rs`
//! ([`Reduction`]), `lcp.rs` (the contact and LCP solvers' passes), the SIMD-optimization paper's `y = A x + b`
//! with baked coefficients (`simd_expr.rs`: [`linear()`], from the abstract four-wide program of
//! [`simd`]) and its stencil passes (`stencil.rs`: [`line_stencil`]), and `float_float.rs`
//! (hi + lo pairs of float32s, about 48 bits: [`ff_matmul`], ...).
//! A body with `{placeholders}` is filled through one checked [`Template`], which refuses a
//! placeholder left unfilled. A kernel of one's own ([`custom()`]) gets the same prelude, and
//! compilers' messages about any kernel are mapped to lines of its body
//! ([`Kernel::compile_error`]).

/// A kernel whose body is a file in `shaders/<dir>/`, compiled into the binary (`built`: as
/// build.rs leaves it, [`built_shader!`]).
macro_rules! shader_kernel {
    (sources $name:literal, $wgsl:expr, $glsl:expr, $inputs:expr) => {
        $crate::kernels::Kernel {
            name: std::borrow::Cow::Borrowed($name),
            inputs: $inputs,
            wgsl: std::borrow::Cow::Borrowed($wgsl),
            glsl: std::borrow::Cow::Borrowed($glsl),
            outputs: 1,
            compute: None,
        }
    };
    (built $dir:literal, $name:literal, $inputs:expr) => {
        shader_kernel!(
            sources $name,
            built_shader!($dir, $name, ".wgsl"),
            built_shader!($dir, $name, ".glsl"),
            $inputs
        )
    };
    ($dir:literal, $name:literal, $inputs:expr) => {
        shader_kernel!(
            sources $name,
            include_str!(concat!("../../shaders/", $dir, "/", $name, ".wgsl")),
            include_str!(concat!("../../shaders/", $dir, "/", $name, ".glsl")),
            $inputs
        )
    };
}

/// A kernel whose body is `shaders/<dir>/<file>.*` (or the `sources` given) after a shared
/// helper `library` (a (WGSL, GLSL) pair): joined once, the first time the kernel is made, so
/// that the binary holds the library once and making the kernel again (every pass of a
/// solver) copies nothing.
macro_rules! library_kernel {
    (sources $library:expr, $name:literal, $sources:expr, $inputs:expr, $outputs:expr) => {{
        static JOINED: std::sync::OnceLock<(&'static str, &'static str)> =
            std::sync::OnceLock::new();
        let joined = *JOINED.get_or_init(|| $crate::kernels::Kernel::join($library, $sources));
        $crate::kernels::Kernel::after_library($name, $inputs, $outputs, joined)
    }};
    ($library:expr, $dir:literal, $name:literal, $file:literal, $inputs:expr, $outputs:expr) => {
        library_kernel!(
            sources $library,
            $name,
            (
                include_str!(concat!("../../shaders/", $dir, "/", $file, ".wgsl")),
                include_str!(concat!("../../shaders/", $dir, "/", $file, ".glsl")),
            ),
            $inputs,
            $outputs
        )
    };
}

/// The file `shaders/<dir>/<name><ext>` as build.rs leaves it: its comments and indentation
/// dropped (the shaders no page shows; build.rs lists them).
macro_rules! built_shader {
    ($dir:literal, $name:literal, $ext:literal) => {
        include_str!(concat!(env!("OUT_DIR"), "/", $dir, "/", $name, $ext))
    };
}
pub(crate) use built_shader;

/// A kernel of the wall's contact library: [`library_kernel!`] over `shaders/solvers/<name>`
/// as build.rs leaves it ([`built_shader!`]).
macro_rules! contact_kernel {
    ($name:literal, $inputs:expr, $outputs:expr) => {
        library_kernel!(
            sources CONTACT_LAYOUT,
            $name,
            (
                built_shader!("solvers", $name, ".wgsl"),
                built_shader!("solvers", $name, ".glsl"),
            ),
            $inputs,
            $outputs
        )
    };
}

/// The [`Template`] of the file `shaders/<path>`, compiled into the binary.
macro_rules! template {
    ($path:literal) => {
        $crate::kernels::Template::new($path, include_str!(concat!("../../shaders/", $path)))
    };
}

mod custom;
mod decimal;
mod elementwise;
mod expr;
mod float_float;
mod functions;
mod kernel;
mod lcp;
mod own_lines;
mod physics;
mod products;
mod reduce;
pub mod simd;
mod simd_expr;
mod stencil;
mod template;

pub use custom::{custom, glsl_messages, Language, ModuleMessage, MAX_BODY_BYTES};
pub use elementwise::{map, map2, DIAGONAL, IDENTITY};
pub use expr::{function_names, Expr};
pub use float_float::{
    ff_combine, ff_linear, ff_matmul, ff_matvec_partial, ff_reduce, ff_sum_cols,
};
pub use functions::{Func, Func2};
pub use kernel::{
    Compute, Kernel, Program, Uniforms, INPUT_NAMES, MAX_INPUTS, MAX_PARAMS, SHAPE_SLOTS,
};
pub use lcp::{
    contact_gauss_seidel, contact_jacobi, contact_nesterov, contact_nesterov_factored,
    contact_nesterov_group, contact_soft_group, contact_soft_separation, contact_soft_step,
    contact_velocities, lcp_jacobi, GROUP_MAX_BODIES, GROUP_MAX_CONTACTS, GROUP_PACK,
    LCP_MAX_REGISTERS, LCP_PARTIAL_BYTES,
};
pub use physics::{narrow_phase, NARROW_PHASE_TEXELS};
pub use products::{
    matmul_fast, matmul_registers, matmul_tensor, matmul_tiled, matvec_tiled,
    tensor_workgroup_bytes, tiled_widths, tiled_workgroup_bytes, FAST_TARGETS, LAPLACIAN,
    LAPLACIAN_TILE, MATMUL, MATMUL_PASS, MATVEC_PARTIAL, MUL_TR, SUM_COLS, SUM_SLICES,
    TENSOR_CHUNK, TILED_CHUNKS, TILED_WIDTHS, TRANSPOSE, TR_MUL,
};
pub use reduce::Reduction;
pub use simd_expr::{
    linear, Lanes, LinearPlan, MAX_BAKED_INSTRUCTIONS, MAX_BAKED_SIZE, SHARED_GATHER_FACTOR,
};
pub use stencil::{line_stencil, Corner, Last, LineStencil};
pub use template::{placeholders, repeat_block, repeat_lines, Template};

#[cfg(test)]
mod tests;
