//! The products as JavaScript sees them: `matmul`, `square`, `mulVec` and `transpose`, each
//! with the kernel as an option (`{ kernel: "fast" }`), by default the fastest kernel here
//! (`capabilities().matmulKernel`). The names are those of [`ProductKernel::NAMES`] and
//! [`MatVecKernel::NAMES`]; a kernel this backend lacks and an option the kernel does not take
//! are clear errors that name what is allowed.

use wasm_bindgen::prelude::*;

use super::gpgpu::Gpgpu;
use super::gpu_matrix::{cpu_product, GpuMatrix};
use super::options::{known_options, option_bool_or, option_count, option_value};
use crate::error::Error;
use crate::gpu::products::cpu::small_enough;
use crate::gpu::{Gpu, MatVecKernel, ProductKernel, Transpose};

#[wasm_bindgen]
impl Gpgpu {
    /// `a * b`, computed on the GPU; the result stays there until read. Options: `kernel`,
    /// "auto" (the default: the fastest kernel here, `capabilities().matmulKernel`, and why,
    /// `.matmulReason`), "teaching" (one output texel per fragment, the ShaderX2 article's MOP), "fast"
    /// (one output texel per render target, up to 8 per fragment), "compute" (WebGPU: workgroup
    /// tiling, 8 x 8 outputs per thread), "registers" (WebGPU: 16 x 32 outputs per invocation
    /// in registers, no workgroup memory: what a software adapter runs fastest) or "passes"
    /// (the thesis's accumulation passes: `perPass` inner indices a pass, default 1, the thesis's;
    /// 24 is the ShaderX2 article's six MOPs a pass); `transposeA`, `transposeB` multiply by A^T and/or B^T
    /// without the caller building them (in one pass by the teaching kernel). Two float-float
    /// matrices give a float-float product (kernel "auto", no transposes).
    pub fn matmul(
        &self,
        a: &GpuMatrix,
        b: &GpuMatrix,
        #[wasm_bindgen(unchecked_optional_param_type = "MatmulOptions")] options: JsValue,
    ) -> Result<GpuMatrix, JsValue> {
        let options = &options;
        known_options(
            options,
            "matmul",
            &["kernel", "transposeA", "transposeB", "perPass"],
        )?;
        let kernel = product_kernel(&self.gpu, options, "matmul")?;
        let transpose = Transpose {
            a: option_bool_or(options, "transposeA", false)?,
            b: option_bool_or(options, "transposeB", false)?,
        };
        if let Some((a, b)) = self.float_float_operands("matmul", a, b)? {
            if transpose != Transpose::NONE || kernel != ProductKernel::Auto {
                return Err(Error::Unsupported(
                    "a float-float matmul has one kernel (\"auto\") and takes no transposeA or \
                     transposeB"
                        .into(),
                )
                .into());
            }
            return self.float_float_result(self.gpu.float_float().mul(&a, &b));
        }
        if let Some(c) = self.cpu_product(kernel, a, b, transpose, "matmul")? {
            return Ok(c);
        }
        let (a, b) = (a.matrix()?, b.matrix()?);
        self.matrix_result(self.gpu.mul_transposed(kernel, &a, &b, transpose))
    }

    /// `m * m` for a square `m`. Options: `kernel` and `perPass`, as `matmul`'s.
    pub fn square(
        &self,
        m: &GpuMatrix,
        #[wasm_bindgen(unchecked_optional_param_type = "SquareOptions")] options: JsValue,
    ) -> Result<GpuMatrix, JsValue> {
        known_options(&options, "square", &["kernel", "perPass"])?;
        let kernel = product_kernel(&self.gpu, &options, "square")?;
        if m.rows() == m.cols() {
            if let Some(c) = self.cpu_product(kernel, m, m, Transpose::NONE, "square")? {
                return Ok(c);
            }
        }
        self.matrix_result(self.gpu.square_with(kernel, &m.matrix()?))
    }

    /// `a^T`.
    pub fn transpose(&self, a: &GpuMatrix) -> Result<GpuMatrix, JsValue> {
        self.matrix_result(self.gpu.transpose(&a.matrix()?))
    }

    /// `a * x` for a column vector x. Option `kernel`: "auto" (the default: "compute" where
    /// `matmul` runs the compute kernel, else "blocked"), "blocked" (partial sums over blocks of
    /// 64 columns in many fragments, then their sum: two passes), "naive" (one fragment per four
    /// output rows, for comparison) or "compute" (WebGPU: one dispatch, partial sums in
    /// workgroup memory). Two float-float operands give a float-float product (blocked; kernel
    /// "auto").
    #[wasm_bindgen(js_name = mulVec)]
    pub fn mul_vec(
        &self,
        a: &GpuMatrix,
        x: &GpuMatrix,
        #[wasm_bindgen(unchecked_optional_param_type = "MulVecOptions")] options: JsValue,
    ) -> Result<GpuMatrix, JsValue> {
        known_options(&options, "mulVec", &["kernel"])?;
        let name = kernel_name(&options, "mulVec", &MatVecKernel::NAMES)?;
        let kernel = name.and_then(MatVecKernel::named).unwrap_or_default();
        if kernel == MatVecKernel::Compute {
            needs_compute(&self.gpu, "mulVec", "compute", &MatVecKernel::NAMES)?;
        }
        if let Some((a, x)) = self.float_float_operands("mulVec", a, x)? {
            if kernel != MatVecKernel::Auto {
                return Err(Error::Unsupported(
                    "a float-float mulVec has one kernel (\"auto\", blocked)".into(),
                )
                .into());
            }
            return self.float_float_result(self.gpu.float_float().mul_vec(&a, &x));
        }
        let (a, x) = (a.matrix()?, x.matrix()?);
        self.matrix_result(self.gpu.mul_vec_with(kernel, &a, &x))
    }
}

impl Gpgpu {
    /// `op(a) op(b)` on the CPU, where `kernel` is "cpu", or "auto" where that is the default
    /// here (a software adapter, [`Gpu::matmul_kernel`]) and the product is small enough to
    /// hold the page briefly ([`small_enough`]), and both operands' values are held on the CPU;
    /// `None` to run it on the GPU ("auto" with an operand only there). For `what`
    /// ("matmul", "square"): "cpu" with an operand only on the GPU is a clear error.
    fn cpu_product(
        &self,
        kernel: ProductKernel,
        a: &GpuMatrix,
        b: &GpuMatrix,
        transpose: Transpose,
        what: &str,
    ) -> Result<Option<GpuMatrix>, Error> {
        let small = (transpose.dims((a.rows(), a.cols()), (b.rows(), b.cols())))
            .map_or(true, |(m, k, n)| small_enough(m, k, n));
        let chosen = kernel == ProductKernel::Auto && self.gpu.cpu_products() && small;
        if kernel != ProductKernel::Cpu && !chosen {
            return Ok(None);
        }
        match cpu_product(&self.gpu, a, b, transpose)? {
            Some((c, shape)) => Ok(Some(self.wrap_values(c, shape))),
            None if chosen => Ok(None),
            None => Err(Error::Unsupported(format!(
                "{what}'s kernel \"cpu\" multiplies values held on the CPU, and an operand's are \
                 only on the GPU (or stored as float16): on a software adapter uploads and this \
                 kernel's results are held on the CPU (keepCopies, the default); elsewhere use \
                 a GPU kernel"
            ))),
        }
    }
}

/// The product kernel `options` name (`kernel`, with `perPass` for "passes"), for `what`
/// ("matmul", "square"): `Auto` when not given; an unknown name, a kernel this backend lacks
/// and `perPass` with another kernel are clear errors.
fn product_kernel(gpu: &Gpu, options: &JsValue, what: &str) -> Result<ProductKernel, Error> {
    let name = kernel_name(options, what, &ProductKernel::NAMES)?;
    let kernel = name
        .and_then(ProductKernel::named)
        .unwrap_or(ProductKernel::Auto);
    let per_pass = option_count(options, "perPass")?;
    match kernel {
        ProductKernel::Passes { .. } => Ok(ProductKernel::Passes {
            per_pass: per_pass.unwrap_or(1),
        }),
        _ if per_pass.is_some() => Err(Error::Argument(format!(
            "{what}'s option perPass belongs to kernel \"passes\", not \"{}\"",
            kernel.name()
        ))),
        ProductKernel::Compute { .. } | ProductKernel::Registers { .. } => {
            let names = &ProductKernel::NAMES;
            needs_compute(gpu, what, kernel.name(), names)?;
            Ok(kernel)
        }
        _ => Ok(kernel),
    }
}

/// The option `kernel` of `what`, one of `names`, if given; anything else a clear error that
/// names them.
fn kernel_name(
    options: &JsValue,
    what: &str,
    names: &[&'static str],
) -> Result<Option<&'static str>, Error> {
    let v = option_value(options, "kernel");
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    let given = v.as_string();
    match names.iter().find(|n| Some(**n) == given.as_deref()) {
        Some(name) => Ok(Some(name)),
        None => Err(Error::Argument(format!(
            "{what} has no kernel {}; its kernels are \"{}\"",
            given.map_or_else(|| "that is not a string".into(), |g| format!("{g:?}")),
            names.join("\", \"")
        ))),
    }
}

/// A clear error unless compute kernels run here, for `what`'s kernel `name`: which kernels
/// this backend has instead (`names` less those that need compute).
pub(super) fn needs_compute(
    gpu: &Gpu,
    what: &str,
    name: &str,
    names: &[&str],
) -> Result<(), Error> {
    if gpu.capabilities().compute {
        return Ok(());
    }
    let here: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !["compute", "registers"].contains(n))
        .collect();
    Err(Error::Unsupported(format!(
        "{what}'s kernel \"{name}\" is a compute shader, and WebGL2 has none: it needs WebGPU; \
         the kernels here are \"{}\"",
        here.join("\", \"")
    )))
}
