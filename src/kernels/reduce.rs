//! Reductions: 16-fold fragment passes over 4x4 blocks of texels, or 4096-fold compute passes
//! over 64 x 64 blocks (WebGPU), then the four components of the last texel: sums, dot products
//! and the largest |element|.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::{Compute, Kernel};

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

    /// How two partial results combine.
    fn merge(self) -> &'static str {
        match self {
            Reduction::Sum | Reduction::Dot => "x + y",
            Reduction::MaxAbs => "keep_nan(x, keep_nan(y, max(x, y)))",
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

    /// The inputs of a first pass.
    fn inputs(self) -> &'static [&'static str] {
        if self == Reduction::Dot {
            &["a", "b"]
        } else {
            &["a"]
        }
    }

    /// One fragment pass over 4x4 blocks of texels.
    pub fn pass(self) -> Kernel {
        let combine = self.combine().0;
        Kernel {
            name: Cow::Owned(format!("reduce_{}", self.name())),
            inputs: self.inputs(),
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

    /// One compute pass over 64 x 64 blocks of texels, one output texel a workgroup, its
    /// invocations' terms met in a tree of workgroup memory.
    pub fn compute_pass(self) -> Kernel {
        static SOURCES: [OnceLock<String>; 3] = [const { OnceLock::new() }; 3];
        let wgsl = SOURCES[self as usize].get_or_init(|| {
            super::Template::new(
                "reductions/reduce_compute.wgsl",
                built_shader!("reductions", "reduce_compute", ".wgsl"),
            )
            .register("combine", self.combine().0)
            .register("merge", self.merge())
            .complete()
        });
        Kernel {
            name: Cow::Owned(format!("reduce_{}_compute", self.name())),
            inputs: self.inputs(),
            wgsl: Cow::Borrowed(wgsl),
            glsl: Cow::Borrowed(""),
            outputs: 1,
            compute: Some(Compute {
                per_group: (1, 1),
                scratch_words: 0,
                unchecked: false,
            }),
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
