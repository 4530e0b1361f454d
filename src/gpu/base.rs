//! [`Gpu`]: opening a backend, running a program, reading back, losing and restoring the GPU.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

use super::pool::{MemoryStats, Pool, Pooled};
use crate::backend::{
    Backend, BackendKind, Capabilities, Draw, DynBackend, Format, GpuSource, Values, WebGl2, WebGpu,
};
use crate::error::{Error, Result};
use crate::global::Canvas;
use crate::kernels::{Kernel, Program};
use crate::layout::Layout;
use crate::matrix::Matrix;
use crate::scene::Scene;

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// A GPU that stores matrices as textures and computes on them, on WebGPU or WebGL2.
pub struct Gpu {
    /// The backend: replaced by a new one of the same kind when [`Gpu::restore`] brings a lost
    /// GPU back (every call takes its own handle, so a read in flight keeps the old one).
    pub(super) backend: RefCell<Rc<dyn DynBackend>>,
    /// The capabilities the GPU opened with: a restored backend must offer at least these.
    pub(super) caps: Capabilities,
    /// The backend's scene renderer, for the wall (none for compute-only use).
    pub(super) renderer: RefCell<Option<Rc<dyn Draw>>>,
    /// The canvas the page gave to draw into (and on WebGL2, to compute in), kept for
    /// [`Gpu::restore`]; none where texla makes its own.
    pub(super) canvas: Option<Canvas>,
    /// Tags this GPU's matrices, so that a matrix of another GPU is refused.
    pub(super) id: u32,
    pub(super) pool: Rc<RefCell<Pool>>,
    /// The last pass, for [`Gpu::last_shader`] and [`Gpu::last_program`].
    pub(super) last_program: RefCell<Option<Program>>,
    /// Passes run and read-backs made so far.
    pub(super) counts: Cell<Counts>,
    /// The largest texture side used (see [`Gpu::tile_limit`]).
    pub(super) tile_limit: Cell<usize>,
    /// How many times a new backend replaced a lost one (see [`Gpu::generation`]).
    pub(super) generation: Cell<u64>,
    /// A new backend being opened, unasked, after a loss (see [`Gpu::revive`]).
    pub(super) revival: Rc<RefCell<super::revival::Revival>>,
    /// The loss was asked for ([`Gpu::lose`]): only [`Gpu::restore`] brings it back.
    pub(super) held: Cell<bool>,
    /// Whether a page's products go to the CPU (see [`Gpu::matmul_kernel`]): by default on a
    /// software adapter.
    pub(super) cpu_products: Cell<bool>,
}

/// GPU passes run and read-backs made, to show what an algorithm costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Fragment-shader passes (one render into one texture each).
    pub passes: u64,
    /// Read-backs of matrix data (scalars included) to the CPU.
    pub readbacks: u64,
}

impl std::ops::Sub for Counts {
    type Output = Counts;

    fn sub(self, earlier: Counts) -> Counts {
        Counts {
            passes: self.passes - earlier.passes,
            readbacks: self.readbacks - earlier.readbacks,
        }
    }
}

/// Which backend to open: "auto" (WebGPU, else WebGL2), "webgpu" or "webgl2".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// WebGPU if it works, else WebGL2.
    Auto,
    /// WebGPU or nothing.
    Force(BackendKind),
}

impl std::str::FromStr for Choice {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "" | "auto" => Ok(Choice::Auto),
            "webgpu" => Ok(Choice::Force(BackendKind::WebGpu)),
            "webgl2" => Ok(Choice::Force(BackendKind::WebGl2)),
            other => Err(Error::UnknownBackend(other.into())),
        }
    }
}

/// An open GPU and why its backend was chosen over the other.
pub struct Opened {
    /// The GPU.
    pub gpu: Gpu,
    /// Why this backend runs and the other one does not, in a sentence for the page.
    pub reason: String,
}

impl Gpu {
    /// Wraps an open backend and, for drawing the wall, its scene renderer.
    pub fn new<B: Backend>(backend: B, renderer: Option<Rc<dyn Draw>>) -> Self {
        Gpu {
            tile_limit: Cell::new(backend.capabilities().max_texture_size as usize),
            cpu_products: Cell::new(backend.capabilities().software),
            caps: backend.capabilities().clone(),
            backend: RefCell::new(Rc::new(backend)),
            renderer: RefCell::new(renderer),
            canvas: None,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            pool: Pool::new(),
            last_program: RefCell::new(None),
            counts: Cell::new(Counts::default()),
            generation: Cell::new(0),
            revival: Rc::default(),
            held: Cell::new(false),
        }
    }

    /// Opens a GPU as `choice` asks; when nothing works the error names what is missing.
    pub async fn open(choice: Choice) -> Result<Opened> {
        Gpu::open_on(choice, GpuSource::Navigator, None).await
    }

    /// Opens a GPU as [`Gpu::open`] does, WebGPU from `source` (`navigator.gpu`, a given `GPU`
    /// or a shared `GPUDevice`), drawing the wall into `canvas` (a `<canvas>` or an
    /// `OffscreenCanvas`, such as one a page moved to a Worker) instead of a canvas of its own:
    /// on WebGL2 the context itself is that canvas's, on WebGPU its 2D context shows the frames.
    pub async fn open_on(
        choice: Choice,
        source: GpuSource,
        canvas: Option<Canvas>,
    ) -> Result<Opened> {
        let with_canvas = |mut gpu: Gpu| {
            gpu.canvas = canvas.clone();
            gpu
        };
        let webgpu = || async {
            let b = WebGpu::create_on(source.clone()).await?;
            let renderer: Rc<dyn Draw> = Rc::new(b.renderer(canvas.clone()));
            Ok::<_, Error>(with_canvas(Gpu::new(b, Some(renderer))))
        };
        let webgl2 = || {
            let b = WebGl2::create(canvas.clone())?;
            let renderer: Rc<dyn Draw> = Rc::new(b.renderer());
            Ok::<_, Error>(with_canvas(Gpu::new(b, Some(renderer))))
        };
        let opened = |gpu, reason: String| Ok(Opened { gpu, reason });
        match choice {
            Choice::Force(BackendKind::WebGpu) => opened(
                webgpu().await?,
                "WebGPU was asked for by name, so WebGL2 was not tried".into(),
            ),
            Choice::Force(BackendKind::WebGl2) => opened(
                webgl2()?,
                "WebGL2 was asked for by name, so WebGPU was not tried".into(),
            ),
            Choice::Auto => match webgpu().await {
                Ok(gpu) => opened(
                    gpu,
                    "WebGPU works here, so the WebGL2 fallback was not needed".into(),
                ),
                Err(gpu_error) => match webgl2() {
                    Ok(gpu) => opened(gpu, format!("fell back to WebGL2 because {gpu_error}")),
                    Err(gl_error) => Err(Error::BackendUnavailable(format!(
                        "no GPU backend works here. {gpu_error}. {gl_error}."
                    ))),
                },
            },
        }
    }

    /// Facts about the backend and adapter.
    pub fn capabilities(&self) -> &Capabilities {
        &self.caps
    }

    /// The backend as its own type `B`, if it is one (the native benchmark tunes WebGPU).
    pub fn backend_as<B: Backend>(&self) -> Option<Rc<B>> {
        self.backend().as_any_rc().downcast().ok()
    }

    /// The backend that runs now.
    pub(super) fn backend(&self) -> Rc<dyn DynBackend> {
        self.backend.borrow().clone()
    }

    /// Runs `program` (a kernel of [`crate::kernels`] on concrete shapes) with `inputs` bound,
    /// into a new matrix of shape `program.output`: how a domain runs a kernel of its own.
    pub fn run(&self, program: Program, inputs: &[&Matrix]) -> Result<Matrix> {
        Ok(self.run_multi(program, inputs)?.remove(0))
    }

    /// Runs `program` into one new matrix per output (render target) of its kernel, in one
    /// pass.
    pub fn run_multi(&self, program: Program, inputs: &[&Matrix]) -> Result<Vec<Matrix>> {
        let textures = inputs
            .iter()
            .map(|m| self.texture(m))
            .collect::<Result<Vec<_>>>()?;
        let outs = (0..program.kernel.outputs)
            .map(|_| self.alloc(program.output))
            .collect::<Result<Vec<_>>>()?;
        let targets = outs
            .iter()
            .map(|m| self.texture(m))
            .collect::<Result<Vec<_>>>()?;
        self.backend().run(&program, &textures, &targets)?;
        *self.last_program.borrow_mut() = Some(program);
        let mut c = self.counts.get();
        c.passes += 1;
        self.counts.set(c);
        Ok(outs)
    }

    /// Runs a kernel without parameters whose inputs are `inputs`.
    pub(super) fn run_kernel(
        &self,
        kernel: Kernel,
        inputs: &[&Matrix],
        output: Layout,
    ) -> Result<Matrix> {
        let layouts = inputs.iter().map(|m| m.layout).collect();
        self.run(Program::new(kernel, layouts, output), inputs)
    }

    /// The texture of `m`, if `m` belongs to this GPU and did not go with a lost backend, and
    /// is one texture (an operation that takes grids of tiles has taken them apart before).
    pub(super) fn texture<'m>(&self, m: &'m Matrix) -> Result<&'m dyn Any> {
        if Gpu::is_tiled(m) && m.owner == self.id {
            return Err(Error::Unsupported(format!(
                "this operation does not work on a matrix larger than one texture yet (the \
                 {}x{} matrix is a grid of {} textures of at most {} texels a side)",
                m.rows(),
                m.cols(),
                Gpu::tile_count(m),
                self.tile_limit()
            )));
        }
        let pooled = m.texture.downcast_ref::<Pooled>();
        let Some(pooled) = pooled.filter(|_| m.owner == self.id) else {
            return Err(Error::ForeignMatrix);
        };
        if !self.pool.borrow().lent(pooled) {
            return Err(Error::LostMatrix);
        }
        Ok(pooled.texture())
    }

    /// The layout of a `rows x cols` matrix, if one texture (of at most [`Gpu::tile_limit`]
    /// texels a side) can hold it.
    pub(super) fn layout(&self, rows: usize, cols: usize) -> Result<Layout> {
        Layout::new(rows, cols, self.tile_limit() as u32)
    }

    /// Fails with [`Error::Lost`] once the GPU went away, unless [`Gpu::revive`] brings it
    /// back now.
    pub(super) fn alive(&self) -> Result<()> {
        self.revive()
    }

    /// Why the GPU went away, if it did (see [`crate::backend::Backend::lost`]).
    pub fn lost(&self) -> Option<String> {
        self.backend().lost()
    }

    /// Where the WebGPU device came from (`navigator.gpu` on WebGL2): a new one after a loss
    /// comes from the same place.
    pub(super) fn source(&self) -> GpuSource {
        self.backend_as::<WebGpu>()
            .map_or_else(GpuSource::default, |b| b.source().clone())
    }

    /// The JavaScript texture that holds `m` (see [`crate::backend::Backend::handle`]), the
    /// work that writes it submitted: the matrix as the caller's own GPU resource.
    pub fn handle(&self, m: &Matrix) -> Result<wasm_bindgen::JsValue> {
        self.alive()?;
        self.backend().handle(self.texture(m)?)
    }

    /// The JavaScript device or context that [`Gpu::handle`]'s textures belong to.
    pub fn device_handle(&self) -> Result<wasm_bindgen::JsValue> {
        self.alive()?;
        self.backend().device_handle()
    }

    /// Makes the GPU go away now (see [`crate::backend::Backend::lose`]), until
    /// [`Gpu::restore`]: a loss asked for is not brought back unasked.
    pub fn lose(&self) {
        self.held.set(true);
        self.backend().lose();
    }

    /// Brings a lost GPU back: a new backend of the same kind (a new WebGL2 context, or a new
    /// WebGPU adapter and device) replaces the lost one, with an empty pipeline cache and an
    /// empty texture pool. Every matrix made before fails with [`Error::LostMatrix`] from then
    /// on; what can be restored has to be uploaded again (the JS API does that from its CPU
    /// copies). Resolves to `false`, doing nothing, when the GPU was not lost. Fails, leaving
    /// the GPU lost, when no new backend opens yet or it offers less than the lost one did.
    /// A loss not reported yet (a WebGPU device destroyed a moment ago, before `device.lost`
    /// settled) is found by a one-texel round trip first.
    pub async fn restore(&self) -> Result<bool> {
        if self.lost().is_none() {
            let probe = self.upload(&[0.0], 1, 1)?;
            let _ = self.read(&probe).await;
        }
        let Some(why) = self.lost() else {
            return Ok(false);
        };
        let failed = |e: Error| Error::Lost(format!("{why}; bringing it back failed: {e}"));
        let (backend, renderer) =
            super::revival::open_backend(self.caps.backend, self.source(), self.canvas.clone())
                .await
                .map_err(failed)?;
        self.install(backend, renderer).map_err(failed)?;
        Ok(true)
    }

    /// A float32 matrix of the given shape with a texture from the pool, contents undefined.
    pub(super) fn alloc(&self, layout: Layout) -> Result<Matrix> {
        self.alloc_as(layout, Format::F32)
    }

    /// [`Gpu::alloc`] stored as `format`.
    pub(super) fn alloc_as(&self, layout: Layout, format: Format) -> Result<Matrix> {
        self.alive()?;
        let size = (layout.width(), layout.height());
        let texture = Pool::take(&self.pool, self.backend().as_ref(), size, format)?;
        Ok(Matrix {
            layout,
            owner: self.id,
            texture: Rc::new(texture),
        })
    }

    /// Passes run and read-backs made since the GPU opened.
    pub fn counts(&self) -> Counts {
        self.counts.get()
    }

    /// Reads `m` back: exactly `rows * cols` values, row-major.
    pub async fn read(&self, m: &Matrix) -> Result<Vec<f32>> {
        Ok(self.read_values(m).await?.into_vec())
    }

    /// Reads `m` back where the backend puts it (see [`Values`]): for the JS API, which hands
    /// the values to the page.
    pub async fn read_values(&self, m: &Matrix) -> Result<Values> {
        self.alive()?;
        if Gpu::is_tiled(m) && m.owner == self.id {
            return Ok(Values::Here(self.read_tiles(m).await?));
        }
        let backend = self.backend();
        let values = backend.read(self.texture(m)?, m.layout).await?;
        self.count_readback();
        Ok(values)
    }

    /// Reads `m` back into `into`, a JavaScript array of exactly `rows * cols` values that the
    /// caller keeps: no new array (whose fresh pages cost as much as the copy), for a page that
    /// reads the same matrix again and again.
    pub async fn read_js(&self, m: &Matrix, into: &js_sys::Float32Array) -> Result<()> {
        self.alive()?;
        let n = m.rows() * m.cols();
        if into.length() as usize != n {
            return Err(Error::Argument(format!(
                "the array has {} values, and the {}x{} matrix {n}",
                into.length(),
                m.rows(),
                m.cols()
            )));
        }
        if Gpu::is_tiled(m) && m.owner == self.id {
            into.copy_from(&self.read_tiles(m).await?);
            return Ok(());
        }
        let backend = self.backend();
        backend.read_js(self.texture(m)?, m.layout, into).await?;
        self.count_readback();
        Ok(())
    }

    /// Reads every matrix of `ms` back, as [`Gpu::read`] each, in one read-back where one
    /// texture can hold them all stacked (float32 matrices of one texture each): a round trip
    /// to the GPU instead of one per matrix. Else one read after another.
    pub async fn read_many(&self, ms: &[&Matrix]) -> Result<Vec<Vec<f32>>> {
        let alone = |m: &&Matrix| Gpu::is_tiled(m) || m.format() != Format::F32;
        let width = ms.iter().map(|m| m.cols()).max().unwrap_or(0);
        let height: usize = ms.iter().map(|m| m.layout.height()).sum();
        let stacked = (ms.len() > 1 && !ms.iter().any(alone))
            .then(|| self.layout(4 * height, width).ok())
            .flatten();
        let Some(stacked) = stacked else {
            let mut values = Vec::with_capacity(ms.len());
            for m in ms {
                values.push(self.read(m).await?);
            }
            return Ok(values);
        };
        let all = self.alloc(stacked)?;
        let mut y = 0;
        for m in ms {
            let size = (m.layout.width(), m.layout.height());
            let backend = self.backend();
            backend.copy_texels(self.texture(m)?, (0, 0), self.texture(&all)?, (0, y), size)?;
            y += size.1;
        }
        let values = self.read(&all).await?;
        // Matrix m is the stack's rows 4 y .. 4 y + rows, its first cols columns.
        let mut y = 0;
        Ok(ms
            .iter()
            .map(|m| {
                let rows = values[4 * y * width..].chunks(width).take(m.rows());
                y += m.layout.height();
                rows.flat_map(|row| &row[..m.cols()]).copied().collect()
            })
            .collect())
    }

    /// Counts one read-back.
    pub(super) fn count_readback(&self) {
        let mut c = self.counts.get();
        c.readbacks += 1;
        self.counts.set(c);
    }

    /// Resolves once all GPU work submitted so far has finished.
    pub async fn finish(&self) -> Result<()> {
        self.alive()?;
        let backend = self.backend();
        backend.finish().await
    }

    /// Resolves once all GPU work submitted so far has finished, like [`Gpu::finish`], but
    /// without holding the page while it waits (WebGL2 polls a fence across turns of the event
    /// loop): what long work calls between its chunks.
    pub async fn settle(&self) -> Result<()> {
        self.alive()?;
        let backend = self.backend();
        backend.settle().await
    }

    /// Live and pooled textures, in counts and bytes, and the peak bytes held at once.
    pub fn memory(&self) -> MemoryStats {
        self.pool.borrow().stats()
    }

    /// Frees the pooled (unused) textures, and the buffers kept from transfers, now.
    pub fn release_pooled(&self) {
        self.pool.borrow_mut().clear();
        self.backend().release_kept();
    }

    /// Starts a new peak (see [`MemoryStats::peak_bytes`]) from the bytes held now.
    pub fn reset_peak(&self) {
        self.pool.borrow_mut().reset_peak();
    }

    /// Full source (WGSL or GLSL, as the backend runs it) of the last kernel that ran.
    pub fn last_shader(&self) -> Option<String> {
        let program = self.last_program.borrow();
        let k = &program.as_ref()?.kernel;
        Some(match self.capabilities().backend {
            BackendKind::WebGpu => k.wgsl_source(),
            BackendKind::WebGl2 => k.glsl_source(),
        })
    }

    /// Both sources of the last kernel that ran, whichever backend ran it: its WGSL module and
    /// its GLSL ES 3.00 twin (`None` for a compute kernel, which WebGL2 cannot run).
    pub fn last_shaders(&self) -> Option<(String, Option<String>)> {
        let program = self.last_program.borrow();
        let k = &program.as_ref()?.kernel;
        Some((
            k.wgsl_source(),
            k.compute.is_none().then(|| k.glsl_source()),
        ))
    }

    /// The last pass that ran: its kernel, shapes and parameters (the tutorial shows its
    /// sources; a page's kernel lab lets a person edit it).
    pub fn last_program(&self) -> Option<Program> {
        self.last_program.borrow().clone()
    }

    /// Draws a scene of lit boxes into [`Gpu::scene_canvas`] (the wall's view).
    pub fn draw_scene(&self, scenes: &[Scene]) -> Result<()> {
        self.alive()?;
        self.renderer()?.draw(scenes)
    }

    /// The canvas [`Gpu::draw_scene`] draws into, for the page to place and size.
    pub fn scene_canvas(&self) -> Result<Canvas> {
        self.renderer()?.canvas()
    }

    pub(super) fn renderer(&self) -> Result<Rc<dyn Draw>> {
        (self.renderer.borrow().clone())
            .ok_or_else(|| Error::Unsupported("this GPU was opened without a renderer".into()))
    }
}

/// A clear error unless `a` and `b` have one shape.
pub(super) fn same_shape(what: &str, a: &Matrix, b: &Matrix) -> Result<()> {
    if a.layout == b.layout {
        Ok(())
    } else {
        Err(Error::Shape(format!(
            "{what} needs matrices of the same shape, got {}x{} and {}x{}",
            a.rows(),
            a.cols(),
            b.rows(),
            b.cols()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn backend_names_parse() {
        assert_eq!("auto".parse(), Ok(Choice::Auto));
        assert_eq!("".parse(), Ok(Choice::Auto));
        assert_eq!("webgl2".parse(), Ok(Choice::Force(BackendKind::WebGl2)));
        assert_eq!("webgpu".parse(), Ok(Choice::Force(BackendKind::WebGpu)));
        let err = "vulkan".parse::<Choice>().unwrap_err();
        assert!(err.to_string().contains("\"vulkan\""), "{err}");
    }
}
