//! Reductions: 16-fold passes over 4x4 blocks of texels, then the four components of the last
//! texel: sums, dot products and the largest |element|.

use std::borrow::Cow;

use super::Kernel;

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
            wgsl: template!("reductions/reduce.wgsl")
                .register("combine", combine)
                .complete()
                .into(),
            glsl: template!("reductions/reduce.glsl")
                .register("combine", combine)
                .complete()
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
            wgsl: template!("reductions/combine_components.wgsl")
                .register("combine", combine)
                .complete()
                .into(),
            glsl: template!("reductions/combine_components.glsl")
                .register("combine", combine)
                .complete()
                .into(),
            outputs: 1,
            compute: None,
        }
    }
}
