//! A kernel's sources as JavaScript sees them: `{ name, wgsl, glsl, own: { wgsl, glsl } }`, the
//! complete modules and the kernel's own lines in each (`glsl` null for a compute kernel). The
//! last kernel that ran (`gpu.lastShaders()`), and the kernel an operation runs, without a GPU
//! (`Gpgpu.kernelSources`): the tutorial shows a lesson's kernel before its check has run.

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::options::{known_options, object, option_bool_or, option_count, option_value};
use super::Gpgpu;
use crate::error::Error;
use crate::gpu::ops;
use crate::kernels::{self, Expr, Kernel, Reduction};
use crate::{nmf, solver};

/// `{ name, wgsl, glsl, own: { wgsl, glsl } }` of `kernel`.
pub(super) fn sources(kernel: &Kernel) -> Object {
    let glsl = |s: String| {
        if kernel.compute.is_some() {
            JsValue::NULL
        } else {
            s.into()
        }
    };
    object(&[
        ("name", kernel.name.as_ref().into()),
        ("wgsl", kernel.wgsl_source().into()),
        ("glsl", glsl(kernel.glsl_source())),
        (
            "own",
            object(&[
                ("wgsl", kernel.own_wgsl().into()),
                ("glsl", glsl(kernel.own_glsl().to_string())),
            ])
            .into(),
        ),
    ])
}

/// The operations `Gpgpu.kernelSources` knows, for its error message.
const OPERATIONS: &str = "\"add\", \"copy\", \"map\", \"matmul\", \"sum\", \"dot\", \"maxAbs\", \
                          \"cg\", \"lcpJacobi\" or \"nmf\"";

/// The kernel `operation` runs (its main pass), as [`Gpgpu::kernel_sources`] describes.
fn kernel_of(operation: &str, options: &JsValue) -> Result<Kernel, Error> {
    let known: &[&str] = match operation {
        "map" => &["expr"],
        "matmul" => &["kernel", "targets", "chunk"],
        "sum" | "dot" | "maxAbs" => &["last"],
        _ => &[],
    };
    known_options(options, &format!("kernelSources(\"{operation}\")"), known)?;
    Ok(match operation {
        "add" => kernels::map(&ops::add()),
        "copy" => kernels::map(&ops::copy()),
        "map" => {
            let expr = option_value(options, "expr").as_string().ok_or_else(|| {
                Error::Argument("kernelSources(\"map\") needs the option expr, a string".into())
            })?;
            kernels::map(&Expr::parse(&expr)?)
        }
        "matmul" => matmul_kernel(options)?,
        "sum" | "dot" | "maxAbs" => {
            let kind = match operation {
                "sum" => Reduction::Sum,
                "dot" => Reduction::Dot,
                _ => Reduction::MaxAbs,
            };
            if option_bool_or(options, "last", false)? {
                kind.last()
            } else {
                kind.pass()
            }
        }
        "cg" => {
            let (x, r) = solver::fused_update(1.0);
            kernels::map2(&x, &r)
        }
        "lcpJacobi" => kernels::map(&Expr::parse(solver::JACOBI_STEP)?),
        "nmf" => kernels::map(&nmf::update(1e-9)),
        other => {
            return Err(Error::Argument(format!(
                "kernelSources knows {OPERATIONS}, not \"{other}\""
            )))
        }
    })
}

/// The product kernel of `options.kernel`: "teaching", "fast" (`targets`, 2 to 8, default 8),
/// "compute" (`chunk`: 8, 16 or 32, default 32, what `matmul(a, b, { kernel: "compute" })` runs).
fn matmul_kernel(options: &JsValue) -> Result<Kernel, Error> {
    let kernel = option_value(options, "kernel").as_string();
    match kernel.as_deref() {
        Some("teaching") => Ok(kernels::MATMUL),
        Some("fast") => {
            let targets = option_count(options, "targets")?.unwrap_or(kernels::FAST_TARGETS);
            if !(2..=kernels::FAST_TARGETS).contains(&targets) {
                return Err(Error::Argument(format!(
                    "the fast kernel writes 2 to {} render targets, not {targets}",
                    kernels::FAST_TARGETS
                )));
            }
            Ok(kernels::matmul_fast(targets))
        }
        Some("compute") => {
            let chunk = option_count(options, "chunk")?.unwrap_or(32);
            if !kernels::TILED_CHUNKS.contains(&chunk) {
                return Err(Error::Argument(format!(
                    "the compute kernel takes chunks of 8, 16 or 32, not {chunk}"
                )));
            }
            Ok(kernels::matmul_tiled(chunk, 128))
        }
        _ => Err(Error::Argument(
            "kernelSources(\"matmul\") needs the option kernel: \"teaching\", \"fast\" or \
             \"compute\""
                .into(),
        )),
    }
}

#[wasm_bindgen]
impl Gpgpu {
    /// The sources of the kernel an operation runs (its main pass), without a GPU:
    /// `{ name, wgsl, glsl, own: { wgsl, glsl } }`, the complete modules and the kernel's own
    /// lines (its body, less the prelude, the inputs' accessors, a shared helper library and the
    /// entry point); `glsl` is null for a compute kernel. `operation`: "add", "copy", "map"
    /// (option `expr`), "matmul" (option `kernel`: "teaching", "fast" with `targets`, or
    /// "compute" with `chunk`), "sum", "dot", "maxAbs" (a 16-fold pass, or with `last: true` the
    /// pass adding the last texel's four channels), "cg" (the fused update of `x` and `r`),
    /// "lcpJacobi" (projected Jacobi's element-wise step), "nmf" (the multiplicative update's
    /// element-wise pass). Throws on an unknown operation or option.
    #[wasm_bindgen(js_name = kernelSources, unchecked_return_type = "KernelSources")]
    pub fn kernel_sources(
        operation: &str,
        #[wasm_bindgen(unchecked_param_type = "KernelSourcesOptions | undefined")] options: JsValue,
    ) -> Result<Object, JsValue> {
        Ok(sources(&kernel_of(operation, &options)?))
    }

    /// Both sources of the last kernel that ran, whichever backend ran it (the tutorial shows
    /// them side by side): `{ name, wgsl, glsl, own: { wgsl, glsl } }` as `kernelSources`
    /// gives them; `glsl` is null for a compute kernel.
    #[wasm_bindgen(js_name = lastShaders, unchecked_return_type = "KernelSources | undefined")]
    pub fn last_shaders(&self) -> JsValue {
        self.gpu
            .last_program()
            .map_or(JsValue::UNDEFINED, |p| sources(&p.kernel).into())
    }
}
