//! The WebGL2 backend, through glow.
//!
//! Matrices are RGBA32F textures with NEAREST filtering, each with its own framebuffer so it can
//! be rendered into and read back. Rendering into RGBA32F needs `EXT_color_buffer_float`.
//! Inputs are read with `texelFetch`, never sampled. The wall's renderer is in `webgl2/scene.rs`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use glow::HasContext;

use super::gl::{drop_linking, gl_errors, is_linked, linked, start_link, LinkFailure};
use super::scene::SceneRenderer;
use crate::backend::{Backend, Capabilities, Format, Values};
use crate::error::{Error, Result};
use crate::global::Canvas;
use crate::hash::Map;
use crate::kernels::{glsl_messages, Kernel, Language, Program};
use crate::layout::Layout;

/// Texels from which a read-back first waits for the GPU without holding the page (see
/// `WebGl2::read`): a 256 x 256 matrix.
const SETTLE_TEXELS: usize = 64 * 256;

/// Milliseconds between polls of a fence once the GPU has taken longer than a few (see
/// `WebGl2::settle`): the most it adds to a wait.
const POLL_MS: f64 = 4.0;

/// A WebGL2 context that runs texla programs.
pub struct WebGl2 {
    gl: Rc<glow::Context>,
    capabilities: Capabilities,
    programs: RefCell<Map<u64, Rc<GlProgram>>>,
    /// Whether a program was linked since the GPU last caught up (`settle`): its first draws
    /// build the driver's pipeline for it on the GPU's side (on a CPU-emulated GPU, tens of ms
    /// each), so the next read or `finish` waits for the GPU without holding the page.
    built: Cell<bool>,
    /// `KHR_parallel_shader_compile`, where the browser has it: `compile` then links without
    /// holding the page, polling the program's completion once a turn of the event loop.
    parallel_compile: bool,
    /// WebGL2 needs a bound vertex array to draw, even one without attributes.
    vertex_array: glow::VertexArray,
    /// A 1 x 1 texture that `finish` reads back to wait for the GPU (see there).
    sync: Texture,
    /// The framebuffer of kernels with several outputs, re-attached for each run.
    multi: glow::Framebuffer,
    /// The context's canvas: kernels render into textures, the [`SceneRenderer`] into it.
    canvas: Canvas,
    /// The same context as `gl`, for what glow does not offer (its loss).
    context: web_sys::WebGl2RenderingContext,
    /// Set by the canvas's `webglcontextlost` event and never cleared: every object of this
    /// context went with it, even once the browser restores the context for a page that asked
    /// (a new backend replaces this one).
    was_lost: Rc<Cell<bool>>,
    /// Set by the canvas's `webglcontextrestored` event: the browser gave the context back
    /// (empty), so a new backend can open (see [`Backend::revivable`]).
    was_restored: Rc<Cell<bool>>,
    /// The listeners that set `was_lost` (and ask the browser to restore the context) and
    /// `was_restored`, removed with the backend.
    on_lost: wasm_bindgen::closure::Closure<dyn FnMut(wasm_bindgen::JsValue)>,
    on_restored: wasm_bindgen::closure::Closure<dyn FnMut()>,
}

/// A linked kernel and the locations of its uniforms.
struct GlProgram {
    program: glow::Program,
    shapes: Option<glow::UniformLocation>,
    params: Option<glow::UniformLocation>,
    inputs: Vec<Option<glow::UniformLocation>>,
}

/// An RGBA32F (or an upload's RGBA16F) texture and the framebuffer that renders into it.
pub struct Texture {
    gl: Rc<glow::Context>,
    texture: glow::Texture,
    format: Format,
    framebuffer: glow::Framebuffer,
    /// The backend's `was_lost`: a texture of a lost context went with it, and deleting it on
    /// that context once restored (a canvas the page gave, see `WebGl2::create`) would be an
    /// INVALID_OPERATION that the next check reports.
    lost: Rc<Cell<bool>>,
}

impl Drop for WebGl2 {
    fn drop(&mut self) {
        use wasm_bindgen::JsCast;
        let _ = self.canvas.remove_event_listener_with_callback(
            "webglcontextlost",
            self.on_lost.as_ref().unchecked_ref(),
        );
        let _ = self.canvas.remove_event_listener_with_callback(
            "webglcontextrestored",
            self.on_restored.as_ref().unchecked_ref(),
        );
    }
}

impl Drop for Texture {
    fn drop(&mut self) {
        if self.lost.get() {
            return;
        }
        // SAFETY: both objects were created by this context and are deleted once.
        unsafe {
            self.gl.delete_framebuffer(self.framebuffer);
            self.gl.delete_texture(self.texture);
        }
    }
}

impl WebGl2 {
    /// Opens a WebGL2 context on `canvas` (a `<canvas>` or an `OffscreenCanvas`; without one, a
    /// new off-page canvas, see [`Canvas::new`]), or says exactly what is missing.
    #[cfg(target_arch = "wasm32")]
    pub fn create(canvas: Option<Canvas>) -> Result<Self> {
        use wasm_bindgen::JsCast;
        let unavailable =
            |why: &str| Error::BackendUnavailable(format!("WebGL2 unavailable: {why}"));
        let canvas = match canvas {
            Some(canvas) => canvas,
            None => Canvas::new().map_err(|e| unavailable(&e.to_string()))?,
        };
        let attributes = web_sys::WebGlContextAttributes::new();
        // Kernels render into textures and ignore these; the wall's scene, drawn into this
        // canvas, uses the depth buffer. No antialiasing: WebGPU's scene has none either, so both
        // backends draw the same picture, and on a CPU-emulated GPU multisampling made the
        // wall's frame half as slow again (headless, 60 cubes awake: 54.1 -> 37.6 ms).
        attributes.set_antialias(false);
        attributes.set_depth(true);
        attributes.set_stencil(false);
        let context: web_sys::WebGl2RenderingContext = canvas
            .get_context("webgl2", &attributes)
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into().ok())
            .ok_or_else(|| {
                unavailable("canvas.getContext(\"webgl2\") returned null (or the canvas has a context of another kind)")
            })?;
        if context.is_context_lost() {
            // A canvas the page gave, whose context was lost: the browser gives the same
            // context back (its `webglcontextrestored` event), or never.
            return Err(unavailable(
                "the canvas's WebGL2 context is lost and the browser has not given it back yet",
            ));
        }
        let context_canvas = canvas.clone();
        if context
            .get_extension("EXT_color_buffer_float")
            .ok()
            .flatten()
            .is_none()
        {
            return Err(unavailable(
                "EXT_color_buffer_float is missing, and without it WebGL2 cannot render into RGBA32F textures",
            ));
        }
        let renderer = context
            .get_extension("WEBGL_debug_renderer_info")
            .ok()
            .flatten()
            .and_then(|_| context.get_parameter(0x9246).ok()) // UNMASKED_RENDERER_WEBGL
            .or_else(|| {
                context
                    .get_parameter(web_sys::WebGl2RenderingContext::RENDERER)
                    .ok()
            })
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| "(the browser does not name its renderer)".into());
        let max_texture_size = context
            .get_parameter(web_sys::WebGl2RenderingContext::MAX_TEXTURE_SIZE)
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(2048.0) as u32;
        let parameter = |p: u32| {
            context
                .get_parameter(p)
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(1.0) as usize
        };
        let max_render_targets = parameter(web_sys::WebGl2RenderingContext::MAX_DRAW_BUFFERS)
            .min(parameter(
                web_sys::WebGl2RenderingContext::MAX_COLOR_ATTACHMENTS,
            ))
            .max(1);
        let was_lost = Rc::new(Cell::new(false));
        let flag = was_lost.clone();
        // preventDefault: texla can go on with a restored context, so the browser restores it.
        let on_lost = wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(
            move |event: wasm_bindgen::JsValue| {
                let prevent = js_sys::Reflect::get(&event, &"preventDefault".into());
                if let Ok(f) = prevent.and_then(|f| f.dyn_into::<js_sys::Function>()) {
                    let _ = f.call0(&event);
                }
                flag.set(true);
            },
        );
        let _ = canvas
            .add_event_listener_with_callback("webglcontextlost", on_lost.as_ref().unchecked_ref());
        let was_restored = Rc::new(Cell::new(false));
        let flag = was_restored.clone();
        let on_restored =
            wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || flag.set(true));
        let _ = canvas.add_event_listener_with_callback(
            "webglcontextrestored",
            on_restored.as_ref().unchecked_ref(),
        );
        let gl = Rc::new(glow::Context::from_webgl2_context(context.clone()));
        let parallel_compile = gl
            .supported_extensions()
            .contains("KHR_parallel_shader_compile");
        // SAFETY: plain object creation on a live context.
        let vertex_array = unsafe { gl.create_vertex_array() }.map_err(Error::Gpu)?;
        let sync = new_texture(&gl, &was_lost, (1, 1), Format::F32, true)?;
        // SAFETY: plain object creation on a live context.
        let multi = unsafe { gl.create_framebuffer() }.map_err(Error::Gpu)?;
        Ok(WebGl2 {
            gl,
            context,
            capabilities: Capabilities {
                backend: crate::backend::BackendKind::WebGl2,
                software: crate::backend::is_software(&renderer),
                adapter: renderer,
                max_texture_size,
                max_render_targets,
                max_workgroup_storage: 0,
                tensor: false,
                compute: false,
            },
            programs: RefCell::new(Map::default()),
            built: Cell::new(false),
            parallel_compile,
            vertex_array,
            sync,
            multi,
            canvas: context_canvas,
            was_lost,
            was_restored,
            on_lost,
            on_restored,
        })
    }

    /// WebGL2 exists only in a browser.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn create(_canvas: Option<Canvas>) -> Result<Self> {
        Err(Error::BackendUnavailable(
            "WebGL2 unavailable: it exists only in a browser".into(),
        ))
    }

    /// The linked program of a kernel, built on first use. A fragment shader that does not
    /// compile is an [`Error::Compile`] with the compiler's lines mapped to the body's.
    fn program(&self, kernel: &Kernel) -> Result<Rc<GlProgram>> {
        if let Some(p) = self.programs.borrow().get(&kernel.key()) {
            return Ok(p.clone());
        }
        let linking = start_link(
            &self.gl,
            Kernel::glsl_vertex_source(),
            &kernel.glsl_source(),
        );
        self.keep(kernel, linking.and_then(|l| linked(&self.gl, l)))
    }

    /// The program of `kernel` as GL linked it (or why not), with its uniforms' locations,
    /// cached for later runs.
    fn keep(
        &self,
        kernel: &Kernel,
        linked: std::result::Result<glow::Program, LinkFailure>,
    ) -> Result<Rc<GlProgram>> {
        let gl = &self.gl;
        let program = linked.map_err(|failure| match failure.step {
            "fragment shader" => kernel.compile_error(Language::Glsl, glsl_messages(&failure.log)),
            _ => failure.into_error(&format!("kernel \"{}\"", kernel.name)),
        })?;
        // SAFETY: queries on a program of this context.
        let linked = unsafe {
            GlProgram {
                program,
                shapes: gl.get_uniform_location(program, "u_shapes"),
                params: gl.get_uniform_location(program, "u_params"),
                inputs: kernel
                    .inputs
                    .iter()
                    .map(|name| gl.get_uniform_location(program, &format!("{name}_tex")))
                    .collect(),
            }
        };
        let linked = Rc::new(linked);
        self.programs
            .borrow_mut()
            .insert(kernel.key(), linked.clone());
        self.built.set(true);
        Ok(linked)
    }

    /// Fails if the context was lost or GL recorded an error.
    fn check_errors(&self) -> Result<()> {
        match Backend::lost(self) {
            Some(why) => Err(Error::Lost(why)),
            None => gl_errors(&self.gl),
        }
    }

    /// The scene renderer of this context (see `SceneRenderer`).
    pub fn renderer(&self) -> SceneRenderer {
        SceneRenderer::new(&self.gl, &self.canvas, self.vertex_array)
    }
}

impl Backend for WebGl2 {
    type Texture = Texture;

    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    #[cfg(target_arch = "wasm32")]
    fn handle(&self, texture: &Texture) -> Result<wasm_bindgen::JsValue> {
        // (Commands on one context run in order: nothing to submit first.)
        self.gl
            .as_web_gl_texture(texture.texture)
            .map(Into::into)
            .ok_or_else(|| Error::Gpu("the matrix's WebGLTexture is gone".into()))
    }

    fn device_handle(&self) -> Result<wasm_bindgen::JsValue> {
        Ok(self.context.clone().into())
    }

    fn create_texture(&self, width: usize, height: usize, format: Format) -> Result<Texture> {
        new_texture(&self.gl, &self.was_lost, (width, height), format, false)
    }

    fn lost(&self) -> Option<String> {
        (self.was_lost.get() || self.context.is_context_lost())
            .then(|| "the WebGL2 context was lost".into())
    }

    fn revivable(&self) -> bool {
        self.was_restored.get() || !self.context.is_context_lost()
    }

    fn lose(&self) {
        // WEBGL_lose_context, called through JavaScript (web-sys has no binding for it here).
        if let Ok(Some(extension)) = self.context.get_extension("WEBGL_lose_context") {
            if let Ok(f) = js_sys::Reflect::get(&extension, &"loseContext".into()) {
                if let Ok(f) = wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f) {
                    let _ = f.call0(&extension);
                }
            }
        }
    }

    fn write(&self, t: &Texture, layout: Layout, data: &[f32]) -> Result<()> {
        let (width, height, texels) = (layout.width(), layout.height(), layout.pack(data));
        let gl = &self.gl;
        // An RGBA16F texture takes float16 bits, rounded here (GL's own conversion of floats
        // may round otherwise and flush float16's subnormals).
        let halves: Vec<u16>;
        let (kind, bytes) = match t.format {
            Format::F32 => (glow::FLOAT, bytemuck::cast_slice(&texels)),
            Format::F16 => {
                halves = crate::backend::halves(&texels);
                (glow::HALF_FLOAT, bytemuck::cast_slice(&halves))
            }
        };
        // SAFETY: `bytes` holds width * height RGBA texels of the texture's format.
        unsafe {
            gl.bind_texture(glow::TEXTURE_2D, Some(t.texture));
            gl.tex_sub_image_2d(
                glow::TEXTURE_2D,
                0,
                0,
                0,
                width as i32,
                height as i32,
                glow::RGBA,
                kind,
                glow::PixelUnpackData::Slice(Some(bytes)),
            );
            gl.bind_texture(glow::TEXTURE_2D, None);
        }
        Ok(())
    }

    async fn compile(&self, kernel: &Kernel) -> Result<()> {
        if kernel.compute.is_some() {
            return Err(Error::Unsupported(format!(
                "\"{}\" is a compute shader, and WebGL2 has none: it needs WebGPU",
                kernel.name
            )));
        }
        if self.programs.borrow().contains_key(&kernel.key()) {
            return Ok(());
        }
        if !self.parallel_compile {
            return self.program(kernel).map(|_| ());
        }
        // KHR_parallel_shader_compile: the browser compiles and links meanwhile; asked once a
        // turn of the event loop whether it is done, the page runs (linking at once held it
        // 10 to 80 ms a kernel here).
        let linking = start_link(
            &self.gl,
            Kernel::glsl_vertex_source(),
            &kernel.glsl_source(),
        );
        let linking = match linking {
            Ok(linking) => linking,
            Err(failure) => return self.keep(kernel, Err(failure)).map(|_| ()),
        };
        while !is_linked(&self.gl, &linking) && Backend::lost(self).is_none() {
            crate::event_loop::sleep_ms(POLL_MS).await;
        }
        if self.programs.borrow().contains_key(&kernel.key()) {
            // A run linked it meanwhile.
            drop_linking(&self.gl, linking);
            return Ok(());
        }
        self.keep(kernel, linked(&self.gl, linking)).map(|_| ())
    }

    fn run(&self, program: &Program, inputs: &[&Texture], outputs: &[&Texture]) -> Result<()> {
        if program.kernel.compute.is_some() {
            return Err(Error::Unsupported(format!(
                "\"{}\" is a compute shader, and WebGL2 has none: it needs WebGPU",
                program.kernel.name
            )));
        }
        let linked = self.program(&program.kernel)?;
        let gl = &self.gl;
        // SAFETY: all objects belong to this context; state set here is reset by the next run.
        unsafe {
            if let [output] = outputs {
                gl.bind_framebuffer(glow::FRAMEBUFFER, Some(output.framebuffer));
            } else {
                gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.multi));
                let attachments: Vec<u32> = (0..outputs.len() as u32)
                    .map(|i| glow::COLOR_ATTACHMENT0 + i)
                    .collect();
                for (t, &attachment) in outputs.iter().zip(&attachments) {
                    gl.framebuffer_texture_2d(
                        glow::FRAMEBUFFER,
                        attachment,
                        glow::TEXTURE_2D,
                        Some(t.texture),
                        0,
                    );
                }
                // Detach what an earlier run with more targets left: attachments of other sizes
                // would clip the render area, and a freed texture must not stay attached.
                for i in outputs.len()..self.capabilities.max_render_targets {
                    gl.framebuffer_texture_2d(
                        glow::FRAMEBUFFER,
                        glow::COLOR_ATTACHMENT0 + i as u32,
                        glow::TEXTURE_2D,
                        None,
                        0,
                    );
                }
                gl.draw_buffers(&attachments);
            }
            gl.viewport(
                0,
                0,
                program.output.width() as i32,
                program.output.height() as i32,
            );
            gl.use_program(Some(linked.program));
            let uniforms = program.uniforms();
            gl.uniform_4_i32_slice(linked.shapes.as_ref(), uniforms.shapes.as_flattened());
            gl.uniform_4_f32_slice(linked.params.as_ref(), uniforms.params.as_flattened());
            for (unit, (t, location)) in inputs.iter().zip(&linked.inputs).enumerate() {
                gl.active_texture(glow::TEXTURE0 + unit as u32);
                gl.bind_texture(glow::TEXTURE_2D, Some(t.texture));
                gl.uniform_1_i32(location.as_ref(), unit as i32);
            }
            gl.bind_vertex_array(Some(self.vertex_array));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
            for unit in 0..inputs.len() {
                gl.active_texture(glow::TEXTURE0 + unit as u32);
                gl.bind_texture(glow::TEXTURE_2D, None);
            }
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
        }
        Ok(())
    }

    fn copy_texels(
        &self,
        src: &Texture,
        (sx, sy): (usize, usize),
        dst: &Texture,
        (dx, dy): (usize, usize),
        (w, h): (usize, usize),
    ) -> Result<()> {
        let [sx, sy, dx, dy, w, h] = [sx, sy, dx, dy, w, h].map(|v| v as i32);
        // SAFETY: both framebuffers belong to this context and hold RGBA32F textures at least
        // this large; the bindings are reset afterwards.
        unsafe {
            self.gl
                .bind_framebuffer(glow::READ_FRAMEBUFFER, Some(src.framebuffer));
            self.gl
                .bind_framebuffer(glow::DRAW_FRAMEBUFFER, Some(dst.framebuffer));
            self.gl.blit_framebuffer(
                sx,
                sy,
                sx + w,
                sy + h,
                dx,
                dy,
                dx + w,
                dy + h,
                glow::COLOR_BUFFER_BIT,
                glow::NEAREST,
            );
            self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
            self.gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, None);
        }
        Ok(())
    }

    async fn read(&self, t: &Texture, layout: Layout) -> Result<Values> {
        let (width, height) = (layout.width(), layout.height());
        if width * height >= SETTLE_TEXELS || self.built.get() {
            // readPixels would hold the page until the GPU has done everything before it (a
            // product of two 1024 x 1024 matrices on a CPU-emulated GPU: about 2 s); a large
            // result mostly follows large work, so its read waits for the GPU first without
            // holding the page. A small one (a residual, a dot) is read at once: the wait costs
            // a few ms, which would double a solver's time here. Except after a new program: its
            // first draws build the driver's pipeline (SwiftShader: 20 to 100 ms a kernel), and
            // a read at once held the page for all of them (the NMF lab's first run, 270 ms).
            Backend::settle(self).await?;
        }
        let mut texels = vec![0.0f32; 4 * width * height];
        let gl = &self.gl;
        // SAFETY: the framebuffer holds a width x height RGBA32F texture; `texels` fits it.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(t.framebuffer));
            gl.read_pixels(
                0,
                0,
                width as i32,
                height as i32,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelPackData::Slice(Some(bytemuck::cast_slice_mut(&mut texels))),
            );
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
        }
        self.check_errors()?;
        Ok(Values::Here(layout.unpack(&texels)))
    }

    async fn finish(&self) -> Result<()> {
        if self.built.get() {
            // After a new program, wait without holding the page (see `read`).
            return Backend::settle(self).await;
        }
        // gl.finish() returns at once in browsers; a read-back cannot: GL runs commands in order,
        // so reading one texel after clearing the sync texture waits for everything before.
        let mut texel = [0.0f32; 4];
        // SAFETY: the sync texture is 1 x 1 RGBA32F and `texel` holds one RGBA float texel.
        unsafe {
            self.gl
                .bind_framebuffer(glow::FRAMEBUFFER, Some(self.sync.framebuffer));
            self.gl.viewport(0, 0, 1, 1);
            self.gl.clear_color(0.0, 0.0, 0.0, 0.0);
            self.gl.clear(glow::COLOR_BUFFER_BIT);
            self.gl.read_pixels(
                0,
                0,
                1,
                1,
                glow::RGBA,
                glow::FLOAT,
                glow::PixelPackData::Slice(Some(bytemuck::cast_slice_mut(&mut texel))),
            );
            self.gl.bind_framebuffer(glow::FRAMEBUFFER, None);
        }
        self.check_errors()
    }

    /// A fence after the work so far, polled once a turn of the event loop until the GPU
    /// passes it: the page runs while the GPU works (a read-back would hold it).
    async fn settle(&self) -> Result<()> {
        // SAFETY (every block below): a fence of this context, queried until it is passed or
        // the context is lost, then deleted once.
        let fence = unsafe {
            let fence = self.gl.fence_sync(glow::SYNC_GPU_COMMANDS_COMPLETE, 0);
            self.gl.flush();
            fence
        }
        .map_err(Error::Gpu)?;
        // The fence follows every draw so far, those that build new programs' pipelines too.
        self.built.set(false);
        // The first poll comes after one turn of the event loop, later ones after waits that
        // double up to POLL_MS: polling every turn kept a core busy, and on a CPU-emulated GPU
        // (SwiftShader, 2 cores) the fast product of 1024 x 1024 matrices ran 37% slower.
        let mut wait = 0.0;
        loop {
            if wait == 0.0 {
                crate::event_loop::next_turn().await;
            } else {
                crate::event_loop::sleep_ms(wait).await;
            }
            if Backend::lost(self).is_some()
                || unsafe { self.gl.get_sync_status(fence) } == glow::SIGNALED
            {
                break;
            }
            wait = (2.0 * wait).clamp(1.0, POLL_MS);
        }
        unsafe { self.gl.delete_sync(fence) };
        self.check_errors()
    }
}

/// A `width x height` RGBA32F (or RGBA16F) texture with NEAREST filtering and its own
/// framebuffer. Only where `check` (the context's first texture) is GL asked whether the
/// framebuffer is complete:
/// RGBA32F renders here (`EXT_color_buffer_float`) or the backend does not open, and the
/// question waits for the GPU to run everything queued before it (on a CPU-emulated GPU,
/// building new kernels' pipelines: up to 30 ms a new matrix).
fn new_texture(
    gl: &Rc<glow::Context>,
    lost: &Rc<Cell<bool>>,
    (width, height): (usize, usize),
    format: Format,
    check: bool,
) -> Result<Texture> {
    // SAFETY: new objects of this context; the texture is bound only for this setup.
    unsafe {
        let texture = gl.create_texture().map_err(Error::Gpu)?;
        gl.bind_texture(glow::TEXTURE_2D, Some(texture));
        gl.tex_storage_2d(
            glow::TEXTURE_2D,
            1,
            match format {
                Format::F32 => glow::RGBA32F,
                Format::F16 => glow::RGBA16F,
            },
            width as i32,
            height as i32,
        );
        // RGBA32F is not filterable: anything but NEAREST would make the texture incomplete.
        for p in [glow::TEXTURE_MIN_FILTER, glow::TEXTURE_MAG_FILTER] {
            gl.tex_parameter_i32(glow::TEXTURE_2D, p, glow::NEAREST as i32);
        }
        gl.bind_texture(glow::TEXTURE_2D, None);
        let framebuffer = match gl.create_framebuffer() {
            Ok(f) => f,
            Err(e) => {
                gl.delete_texture(texture);
                return Err(Error::Gpu(e));
            }
        };
        let t = Texture {
            gl: gl.clone(),
            texture,
            format,
            framebuffer,
            lost: lost.clone(),
        };
        gl.bind_framebuffer(glow::FRAMEBUFFER, Some(framebuffer));
        gl.framebuffer_texture_2d(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            Some(texture),
            0,
        );
        let status = if check {
            gl.check_framebuffer_status(glow::FRAMEBUFFER)
        } else {
            glow::FRAMEBUFFER_COMPLETE
        };
        gl.bind_framebuffer(glow::FRAMEBUFFER, None);
        if status != glow::FRAMEBUFFER_COMPLETE {
            return Err(Error::Gpu(format!(
                "cannot render into a {width}x{height} RGBA32F texture (framebuffer status 0x{status:04x})"
            )));
        }
        Ok(t)
    }
}
