//! What every backend provides: RGBA32F textures, running a [`Program`] into one, reading back.
//!
//! Two traits at one small seam, as wgpu-hal does it: [`Backend`] is what a backend implements,
//! with its own texture type; [`DynBackend`] is the same set of calls with the textures erased
//! (`dyn Any`), written ONCE for every backend by a blanket impl, so that everything above the
//! seam ([`crate::gpu::Gpu`], the pool) is one concrete type. Drawing is not part of it: a
//! backend's scene renderer is a separate [`Draw`].

use std::any::Any;
use std::future::Future;
use std::pin::Pin;

use crate::error::{Error, Result};
use crate::global::Canvas;
use crate::kernels::{Kernel, Program};
use crate::layout::Layout;
use crate::scene::Scene;

/// A future of this single-threaded crate.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Which backend runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    /// WebGPU through wgpu.
    WebGpu,
    /// WebGL2 through glow.
    WebGl2,
}

impl BackendKind {
    /// The name used in the API and on the page: "webgpu" or "webgl2".
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::WebGpu => "webgpu",
            BackendKind::WebGl2 => "webgl2",
        }
    }
}

/// How a matrix texture stores its values: four per texel, as float32 (`RGBA32F`, every
/// result and the default upload) or float16 (`RGBA16F`, an upload's option: half the memory
/// and the bytes a kernel reads, values rounded to float16 once; kernels compute in float32
/// either way).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// RGBA32F.
    #[default]
    F32,
    /// RGBA16F.
    F16,
}

impl Format {
    /// Bytes of one texel.
    pub fn texel_bytes(self) -> usize {
        match self {
            Format::F32 => 16,
            Format::F16 => 8,
        }
    }

    /// The name in the API: "float32" or "float16".
    pub fn name(self) -> &'static str {
        match self {
            Format::F32 => "float32",
            Format::F16 => "float16",
        }
    }
}

/// The float16 bits of `values`, each rounded to the nearest float16 (ties to even), as an
/// RGBA16F texture's upload takes them.
pub(crate) fn halves(values: &[f32]) -> Vec<u16> {
    values.iter().map(|&v| half_bits(v)).collect()
}

/// The float16 bits of `v`, rounded to the nearest float16, ties to even: `half::f16::from_f32`
/// bit for bit (NaN keeps the top of its payload), written without a branch that a loop could
/// not turn into selects, so that wasm's SIMD converts four values at a time (the crate's own
/// conversion branches per value: about 7 ns a value in Chromium here, most of a float16
/// upload's CPU time). Fabian Giesen's `float_to_half_fast3_rtne`: float16's subnormals by one
/// float32 addition that rounds them into place, normal values by a biased truncation.
pub(crate) fn half_bits(v: f32) -> u16 {
    // 0.5: its float32 step is float16's least subnormal, 2^-24.
    const SUBNORMAL_MAGIC: u32 = 126 << 23;
    let bits = v.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let a = bits & 0x7fff_ffff;
    let big = if a > 0x7f80_0000 {
        0x7e00 | ((a >> 13) & 0x3ff) // NaN
    } else {
        0x7c00 // an infinity, or past float16's range
    };
    let small = (f32::from_bits(a) + f32::from_bits(SUBNORMAL_MAGIC))
        .to_bits()
        .wrapping_sub(SUBNORMAL_MAGIC);
    let normal = a
        .wrapping_sub(112 << 23)
        .wrapping_add(0xfff + ((a >> 13) & 1))
        >> 13;
    let h = if a >= 143 << 23 {
        big
    } else if a < 113 << 23 {
        small
    } else {
        normal
    };
    (h | sign) as u16
}

#[cfg(test)]
mod tests {
    /// `half_bits` against the `half` crate: at every 31st float32 bit pattern (every sign,
    /// exponent, NaN and infinity among them), at every pattern whose 13 bits that a normal
    /// float16 drops are a tie or either side of one, and at every positive value from 2^-27
    /// to 2^-13 (float16's subnormals and the ties between them, rounded by another path).
    #[test]
    fn half_bits_rounds_as_the_half_crate() {
        let check = |bits: u32| {
            let v = f32::from_bits(bits);
            let want = half::f16::from_f32(v).to_bits();
            assert_eq!(super::half_bits(v), want, "{v:e} ({bits:#010x})");
        };
        (0..=u32::MAX).step_by(31).for_each(check);
        for high in 0..1u32 << 19 {
            for low in [0x0fff, 0x1000, 0x1001] {
                check((high << 13) | low);
            }
        }
        (100u32 << 23..114 << 23).for_each(check);
    }
}

/// Facts about the running backend, shown in the page's capability panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    /// The backend.
    pub backend: BackendKind,
    /// Adapter (WebGPU) or renderer (WebGL2) description.
    pub adapter: String,
    /// Largest texture side in texels: matrices up to `max * 4` rows and `max` columns.
    pub max_texture_size: u32,
    /// RGBA32F render targets one fragment pass may write (at least 1).
    pub max_render_targets: usize,
    /// Bytes of workgroup memory a compute kernel may declare (0 without a compute path).
    pub max_workgroup_storage: usize,
    /// Whether the adapter is a software renderer (a CPU, such as SwiftShader).
    pub software: bool,
    /// Whether compute kernels run (WebGPU: yes; WebGL2 has no compute shaders).
    pub compute: bool,
    /// Whether the device multiplies 16 x 16 tiles of float16 with float32 sums on cooperative
    /// matrices (NVIDIA's tensor cores), in subgroups of 32: natively only, through wgpu's
    /// experimental cooperative matrices on Vulkan where the adapter offers that configuration
    /// ([`crate::gpu::ProductKernel::Tensor`]). No browser offers it.
    pub tensor: bool,
}

impl Capabilities {
    /// A clear `Unsupported` error where `what` needs compute kernels and they do not run here.
    pub fn needs_compute(&self, what: &str) -> Result<()> {
        if self.compute {
            Ok(())
        } else {
            Err(crate::error::Error::Unsupported(format!(
                "{what} is a compute shader, and WebGL2 has none: it needs WebGPU"
            )))
        }
    }
}

/// Whether an adapter or renderer description names a software renderer.
pub(crate) fn is_software(description: &str) -> bool {
    let d = description.to_ascii_lowercase();
    ["swiftshader", "llvmpipe", "lavapipe", "software"]
        .iter()
        .any(|s| d.contains(s))
}

/// A matrix read back, row-major: in this program's memory, or (WebGPU in a browser) straight
/// in a JavaScript array, copied once out of the mapped buffer and never through wasm memory.
#[derive(Debug)]
pub enum Values {
    /// In this program's memory.
    Here(Vec<f32>),
    /// A JavaScript `Float32Array` of its own.
    #[cfg(target_arch = "wasm32")]
    Js(js_sys::Float32Array),
}

impl Values {
    /// The values in this program's memory (a copy where they are in JavaScript).
    pub fn into_vec(self) -> Vec<f32> {
        match self {
            Values::Here(values) => values,
            #[cfg(target_arch = "wasm32")]
            Values::Js(array) => array.to_vec(),
        }
    }

    /// The values as a JavaScript `Float32Array` (a copy where they are in wasm memory).
    pub fn into_js(self) -> js_sys::Float32Array {
        match self {
            Values::Here(values) => js_sys::Float32Array::from(values.as_slice()),
            #[cfg(target_arch = "wasm32")]
            Values::Js(array) => array,
        }
    }
}

/// A GPU that stores matrices as RGBA32F textures and runs fragment-shader programs on them.
///
/// Textures free their GPU memory when dropped.
pub trait Backend: Sized + 'static {
    /// An RGBA32F texture that can be sampled, rendered into, written and read.
    type Texture;

    /// Facts for the capability panel.
    fn capabilities(&self) -> &Capabilities;

    /// A new texture of `width x height` texels of `format`, contents undefined. Only uploads
    /// write a float16 texture; programs render into float32 ones.
    fn create_texture(&self, width: usize, height: usize, format: Format) -> Result<Self::Texture>;

    /// Writes the matrix of shape `layout` from row-major `data` (`rows * cols` values) into
    /// `texture`, padding rows zero; into a float16 texture each rounded to the nearest float16
    /// (ties to even), every one within float16's range.
    fn write(&self, texture: &Self::Texture, layout: Layout, data: &[f32]) -> Result<()>;

    /// [`Backend::write`] from a JavaScript array (a page's upload): by default through a copy
    /// into this program's memory; a backend may take the values from JavaScript directly.
    fn write_js(
        &self,
        texture: &Self::Texture,
        layout: Layout,
        data: &js_sys::Float32Array,
    ) -> Result<()> {
        self.write(texture, layout, &data.to_vec())
    }

    /// Why the GPU went away, if it did (the context or device was lost): every later
    /// operation fails with it.
    fn lost(&self) -> Option<String>;

    /// Makes the GPU go away now, as a reset or a driver crash would (WebGL2's
    /// `WEBGL_lose_context`, WebGPU's `device.destroy()`): for tests, and to see what a page
    /// does then.
    fn lose(&self);

    /// Once lost, whether a new backend of this kind can open now: WebGL2's only after the
    /// browser restored the lost context (`webglcontextrestored`); WebGPU's at any time.
    fn revivable(&self) -> bool {
        true
    }

    /// Runs `program` with `inputs` (in the kernel's order) bound, rendering every texel of
    /// each of `outputs` (one per render target of the kernel, all of the program's shape).
    fn run(
        &self,
        program: &Program,
        inputs: &[&Self::Texture],
        outputs: &[&Self::Texture],
    ) -> Result<()>;

    /// Builds `kernel`'s pipeline now, for a kernel whose source may not compile (one of a
    /// person's own): one that does not fails with [`Error::Compile`] (the compiler's messages,
    /// lines in the kernel's body) and leaves the device as it was, every later call working;
    /// one that does is kept for [`Backend::run`]. By default the pipeline is built by a run.
    fn compile(&self, kernel: &Kernel) -> impl Future<Output = Result<()>> {
        let _ = kernel;
        async { Ok(()) }
    }

    /// Copies the `size = (width, height)` texels of `src` from texel `from = (x, y)` to texel
    /// `to` of `dst`, in order with the runs around it.
    fn copy_texels(
        &self,
        src: &Self::Texture,
        from: (usize, usize),
        dst: &Self::Texture,
        to: (usize, usize),
        size: (usize, usize),
    ) -> Result<()>;

    /// Reads the matrix of shape `layout` held by `texture` back: `rows * cols` values,
    /// row-major.
    fn read(&self, texture: &Self::Texture, layout: Layout)
        -> impl Future<Output = Result<Values>>;

    /// [`Backend::read`] into `into`, a JavaScript array of exactly `rows * cols` values that
    /// the caller keeps (a page reading the same matrix every frame): by default a read and a
    /// copy; a backend may copy the values into it directly, with no new array in between.
    fn read_js(
        &self,
        texture: &Self::Texture,
        layout: Layout,
        into: &js_sys::Float32Array,
    ) -> impl Future<Output = Result<()>> {
        async move {
            match self.read(texture, layout).await? {
                Values::Here(values) => into.copy_from(&values),
                #[cfg(target_arch = "wasm32")]
                Values::Js(values) => into.set(&values, 0),
            }
            Ok(())
        }
    }

    /// Resolves once all submitted GPU work has finished (for timing).
    fn finish(&self) -> impl Future<Output = Result<()>>;

    /// Resolves once all submitted GPU work has finished, the page running meanwhile (long
    /// work waits for the GPU this way between chunks): [`Backend::finish`] by default, for a
    /// backend whose finish does not hold the page.
    fn settle(&self) -> impl Future<Output = Result<()>> {
        self.finish()
    }

    /// Frees the buffers kept from transfers for the next ones (none by default).
    fn release_kept(&self) {}

    /// `texture` as the JavaScript object of the API underneath (a `GPUTexture`, a
    /// `WebGLTexture`), the work that writes it submitted, for the caller to draw with.
    fn handle(&self, texture: &Self::Texture) -> Result<wasm_bindgen::JsValue> {
        let _ = texture;
        Err(Error::Unsupported(
            "this backend has no JavaScript texture to give".into(),
        ))
    }

    /// The JavaScript object that [`Backend::handle`]'s textures belong to: the `GPUDevice`,
    /// or the `WebGL2RenderingContext`.
    fn device_handle(&self) -> Result<wasm_bindgen::JsValue> {
        Err(Error::Unsupported(
            "this backend has no JavaScript device to give".into(),
        ))
    }
}

/// A texture of some backend, its type erased: what [`DynBackend`] takes and gives.
pub type DynTexture = Box<dyn Any>;

/// [`Backend`] with its texture type erased. Implemented for every backend by the blanket impl
/// below; a texture of another backend is refused as a foreign matrix.
pub trait DynBackend {
    /// Facts for the capability panel.
    fn capabilities(&self) -> &Capabilities;
    /// See [`Backend::create_texture`].
    fn create_texture(&self, width: usize, height: usize, format: Format) -> Result<DynTexture>;
    /// See [`Backend::write`].
    fn write(&self, texture: &dyn Any, layout: Layout, data: &[f32]) -> Result<()>;
    /// See [`Backend::write_js`].
    fn write_js(
        &self,
        texture: &dyn Any,
        layout: Layout,
        data: &js_sys::Float32Array,
    ) -> Result<()>;
    /// See [`Backend::lost`].
    fn lost(&self) -> Option<String>;
    /// See [`Backend::lose`].
    fn lose(&self);
    /// See [`Backend::revivable`].
    fn revivable(&self) -> bool;
    /// See [`Backend::run`].
    fn run(&self, program: &Program, inputs: &[&dyn Any], outputs: &[&dyn Any]) -> Result<()>;
    /// See [`Backend::compile`].
    fn compile<'a>(&'a self, kernel: &'a Kernel) -> LocalFuture<'a, Result<()>>;
    /// See [`Backend::copy_texels`].
    fn copy_texels(
        &self,
        src: &dyn Any,
        from: (usize, usize),
        dst: &dyn Any,
        to: (usize, usize),
        size: (usize, usize),
    ) -> Result<()>;
    /// See [`Backend::read`].
    fn read<'a>(&'a self, texture: &'a dyn Any, layout: Layout) -> LocalFuture<'a, Result<Values>>;
    /// See [`Backend::read_js`].
    fn read_js<'a>(
        &'a self,
        texture: &'a dyn Any,
        layout: Layout,
        into: &'a js_sys::Float32Array,
    ) -> LocalFuture<'a, Result<()>>;
    /// See [`Backend::finish`].
    fn finish(&self) -> LocalFuture<'_, Result<()>>;
    /// See [`Backend::settle`].
    fn settle(&self) -> LocalFuture<'_, Result<()>>;
    /// See [`Backend::release_kept`].
    fn release_kept(&self);
    /// See [`Backend::handle`].
    fn handle(&self, texture: &dyn Any) -> Result<wasm_bindgen::JsValue>;
    /// See [`Backend::device_handle`].
    fn device_handle(&self) -> Result<wasm_bindgen::JsValue>;
    /// The backend itself, for code that knows which one it opened (the native benchmark).
    fn as_any(&self) -> &dyn Any;
    /// The shared backend itself, for [`crate::gpu::Gpu::backend_as`].
    fn as_any_rc(self: std::rc::Rc<Self>) -> std::rc::Rc<dyn Any>;
}

/// `texture` as a texture of backend `B`.
fn typed<B: Backend>(texture: &dyn Any) -> Result<&B::Texture> {
    texture.downcast_ref().ok_or(Error::ForeignMatrix)
}

/// Every textures list as `B`'s textures.
fn all_typed<'a, B: Backend>(textures: &[&'a dyn Any]) -> Result<Vec<&'a B::Texture>> {
    textures.iter().map(|t| typed::<B>(*t)).collect()
}

impl<B: Backend> DynBackend for B {
    fn capabilities(&self) -> &Capabilities {
        Backend::capabilities(self)
    }

    fn create_texture(&self, width: usize, height: usize, format: Format) -> Result<DynTexture> {
        Ok(Box::new(Backend::create_texture(
            self, width, height, format,
        )?))
    }

    fn write(&self, texture: &dyn Any, layout: Layout, data: &[f32]) -> Result<()> {
        Backend::write(self, typed::<B>(texture)?, layout, data)
    }

    fn write_js(
        &self,
        texture: &dyn Any,
        layout: Layout,
        data: &js_sys::Float32Array,
    ) -> Result<()> {
        Backend::write_js(self, typed::<B>(texture)?, layout, data)
    }

    fn lost(&self) -> Option<String> {
        Backend::lost(self)
    }

    fn lose(&self) {
        Backend::lose(self)
    }

    fn revivable(&self) -> bool {
        Backend::revivable(self)
    }

    fn run(&self, program: &Program, inputs: &[&dyn Any], outputs: &[&dyn Any]) -> Result<()> {
        Backend::run(
            self,
            program,
            &all_typed::<B>(inputs)?,
            &all_typed::<B>(outputs)?,
        )
    }

    fn compile<'a>(&'a self, kernel: &'a Kernel) -> LocalFuture<'a, Result<()>> {
        Box::pin(Backend::compile(self, kernel))
    }

    fn copy_texels(
        &self,
        src: &dyn Any,
        from: (usize, usize),
        dst: &dyn Any,
        to: (usize, usize),
        size: (usize, usize),
    ) -> Result<()> {
        Backend::copy_texels(self, typed::<B>(src)?, from, typed::<B>(dst)?, to, size)
    }

    fn read<'a>(&'a self, texture: &'a dyn Any, layout: Layout) -> LocalFuture<'a, Result<Values>> {
        Box::pin(async move { Backend::read(self, typed::<B>(texture)?, layout).await })
    }

    fn read_js<'a>(
        &'a self,
        texture: &'a dyn Any,
        layout: Layout,
        into: &'a js_sys::Float32Array,
    ) -> LocalFuture<'a, Result<()>> {
        Box::pin(async move { Backend::read_js(self, typed::<B>(texture)?, layout, into).await })
    }

    fn finish(&self) -> LocalFuture<'_, Result<()>> {
        Box::pin(Backend::finish(self))
    }

    fn settle(&self) -> LocalFuture<'_, Result<()>> {
        Box::pin(Backend::settle(self))
    }

    fn release_kept(&self) {
        Backend::release_kept(self)
    }

    fn handle(&self, texture: &dyn Any) -> Result<wasm_bindgen::JsValue> {
        Backend::handle(self, typed::<B>(texture)?)
    }

    fn device_handle(&self) -> Result<wasm_bindgen::JsValue> {
        Backend::device_handle(self)
    }

    fn as_any_rc(self: std::rc::Rc<Self>) -> std::rc::Rc<dyn Any> {
        self
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A backend's scene renderer: draws the wall ([`Scene`], `shaders/scene/`) into a canvas of its
/// own. Kept apart from [`Backend`], so compute-only code never sees drawing.
pub trait Draw {
    /// Draws `scenes` (one frame, [`crate::scene::MAX_INSTANCES`] instances each) into
    /// [`Draw::canvas`] at that canvas's current size.
    fn draw(&self, scenes: &[Scene]) -> Result<()>;

    /// The canvas [`Draw::draw`] renders into, for the page to place and size.
    fn canvas(&self) -> Result<Canvas>;
}
