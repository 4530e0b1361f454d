//! Float-float kernels: matrices whose elements are hi + lo, two float32s (about 48 bits),
//! stored as two textures of the usual layout. Every kernel reads both halves of each operand
//! (inputs a, b for the first operand's hi and lo, c, d for the second's) and writes both
//! halves of its result as two render targets of one pass. The arithmetic (Knuth's two-sum,
//! the two-product by fma in WGSL and by Dekker's split in GLSL) is the shared piece
//! `shaders/float_float/ff.*`, put before each body.

use std::borrow::Cow;

use super::{Kernel, Template};

/// The shared float-float arithmetic, put before every float-float body.
pub(super) const FF: (&str, &str) = (
    include_str!("../../shaders/float_float/ff.wgsl"),
    include_str!("../../shaders/float_float/ff.glsl"),
);

/// `s X + t Y` element by element: inputs X (a, b) and Y (c, d), the float-float factors
/// `s = param(0) + param(1)`, `t = param(2) + param(3)`; outputs hi, lo.
pub fn ff_linear() -> Kernel {
    library_kernel!(
        FF,
        "float_float",
        "ff_linear",
        "linear",
        &["a", "b", "c", "d"],
        2
    )
}
/// `C = A B`: inputs A (a, b: m x k) and B (c, d: k x n), one output texel per fragment;
/// outputs C's hi and lo (m x n).
pub fn ff_matmul() -> Kernel {
    library_kernel!(
        FF,
        "float_float",
        "ff_matmul",
        "matmul",
        &["a", "b", "c", "d"],
        2
    )
}
/// Blocked `y = A x`, first pass: partial sums over blocks of `param(0)` columns; outputs hi,
/// lo of the partial sums.
pub fn ff_matvec_partial() -> Kernel {
    library_kernel!(
        FF,
        "float_float",
        "ff_matvec_partial",
        "matvec_partial",
        &["a", "b", "c", "d"],
        2
    )
}
/// Blocked `y = A x`, second pass: the sum across each row of the partial sums (a, b).
pub fn ff_sum_cols() -> Kernel {
    library_kernel!(FF, "float_float", "ff_sum_cols", "sum_cols", &["a", "b"], 2)
}
/// The last pass of a reduction: the four lanes of texel (0, 0) of (a, b) summed, written as
/// the 2 x 1 matrix (hi, lo).
pub fn ff_combine() -> Kernel {
    library_kernel!(FF, "float_float", "ff_combine", "combine", &["a", "b"], 1)
}

/// One 16-fold pass of a float-float sum: `dot` for the first pass of a dot product (the
/// float-float products of (a, b) and (c, d)), else the sum of (a, b).
pub fn ff_reduce(dot: bool) -> Kernel {
    let (name, inputs, term): (&str, &'static [&'static str], &str) = if dot {
        (
            "ff_reduce_dot",
            &["a", "b", "c", "d"],
            "ff_mul(ff_texel(a_texel(x, y), b_texel(x, y)), ff_texel(c_texel(x, y), d_texel(x, y)))",
        )
    } else {
        (
            "ff_reduce_sum",
            &["a", "b"],
            "ff_texel(a_texel(x, y), b_texel(x, y))",
        )
    };
    let body = |prelude: &str, src: Template| {
        format!("{prelude}{}", src.register("term", term).complete())
    };
    Kernel {
        name: Cow::Borrowed(name),
        inputs,
        wgsl: body(FF.0, template!("float_float/reduce.wgsl")).into(),
        glsl: body(FF.1, template!("float_float/reduce.glsl")).into(),
        outputs: 2,
        compute: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_float_kernels_carry_the_shared_piece_and_no_placeholder() {
        for k in [
            ff_linear(),
            ff_matmul(),
            ff_matvec_partial(),
            ff_sum_cols(),
            ff_combine(),
            ff_reduce(true),
            ff_reduce(false),
        ] {
            let (wgsl, glsl) = (k.wgsl_source(), k.glsl_source());
            assert!(wgsl.contains("fn ff_two_sum(") && wgsl.contains("fma(a, b, -p)"));
            assert!(wgsl.contains("if (ff_fma_fused())"));
            assert!(glsl.contains("Ff ff_two_prod(") && !glsl.contains("fma("));
            assert!(
                !wgsl.contains("{term}") && !glsl.contains("{term}"),
                "{}",
                k.name
            );
            if k.outputs == 2 {
                assert!(wgsl.contains("@location(1) o1: vec4<f32>"));
                assert!(glsl.contains("layout(location = 1) out vec4 out_1;"));
            }
        }
        assert_ne!(ff_reduce(true).key(), ff_reduce(false).key());
    }
}
