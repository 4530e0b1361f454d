//! The wall's renderer on WebGL2: lit boxes and a ball (`shaders/scene/scene.glsl`) drawn into
//! the context's own canvas, between the kernels' passes.

use std::cell::RefCell;
use std::rc::Rc;

use glow::HasContext;

use super::gl::{gl_errors, link};
use crate::backend::Draw;
use crate::error::{Error, Result};
use crate::global::Canvas;
use crate::scene::{Scene, BALL_VERTICES, BOX_VERTICES};

/// Draws the wall with the context that computes it. Made by `WebGl2::renderer`.
pub struct SceneRenderer {
    gl: Rc<glow::Context>,
    canvas: Canvas,
    /// WebGL2 needs a bound vertex array to draw, even one without attributes.
    vertex_array: glow::VertexArray,
    /// The scene program and its uniform buffer, made on the first draw.
    scene: RefCell<Option<(glow::Program, glow::Buffer)>>,
    /// Signalled when the last frame drawn is done: until then a draw is skipped, so that frames
    /// asked for faster than the GPU draws them (a sleeping wall steps in microseconds) do not
    /// pile up in its queue and delay every later read-back.
    drawn: RefCell<Option<glow::Fence>>,
}

impl SceneRenderer {
    /// A renderer into `canvas`, the canvas of `gl`.
    pub(super) fn new(
        gl: &Rc<glow::Context>,
        canvas: &Canvas,
        vertex_array: glow::VertexArray,
    ) -> Self {
        SceneRenderer {
            gl: gl.clone(),
            canvas: canvas.clone(),
            vertex_array,
            scene: RefCell::new(None),
            drawn: RefCell::new(None),
        }
    }
}

impl Draw for SceneRenderer {
    fn draw(&self, scenes: &[Scene]) -> Result<()> {
        let gl = &self.gl;
        if let Some(fence) = self.drawn.take() {
            // SAFETY: a fence of this context, deleted once signalled.
            unsafe {
                if gl.get_sync_status(fence) != glow::SIGNALED {
                    self.drawn.replace(Some(fence));
                    return Ok(());
                }
                gl.delete_sync(fence);
            }
        }
        if self.scene.borrow().is_none() {
            let source = crate::kernels::built_shader!("scene", "scene", ".glsl");
            let stage = |define: &str| format!("#version 300 es\n#define {define}\n{source}");
            let program = link(gl, &stage("VERTEX"), &stage("FRAGMENT"))
                .map_err(|failure| failure.into_error("the scene shader"))?;
            // SAFETY: objects of this context.
            let buffer = unsafe {
                if let Some(index) = gl.get_uniform_block_index(program, "Scene") {
                    gl.uniform_block_binding(program, index, 0);
                }
                gl.create_buffer().map_err(Error::Gpu)?
            };
            *self.scene.borrow_mut() = Some((program, buffer));
        }
        let (program, buffer) = self.scene.borrow().expect("made above");
        let (width, height) = (self.canvas.width() as i32, self.canvas.height() as i32);
        // SAFETY: objects of this context; the state changed here is restored at the end.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            gl.viewport(0, 0, width, height);
            gl.enable(glow::DEPTH_TEST);
            // Back faces culled (`shaders/scene/`: every triangle turns counter-clockwise seen
            // from outside; CCW front faces and BACK culling are WebGL2's defaults).
            gl.enable(glow::CULL_FACE);
            gl.clear_color(0.80, 0.86, 0.93, 1.0);
            gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
            gl.use_program(Some(program));
            gl.bind_buffer(glow::UNIFORM_BUFFER, Some(buffer));
            gl.bind_vertex_array(Some(self.vertex_array));
            for scene in scenes {
                gl.buffer_data_u8_slice(
                    glow::UNIFORM_BUFFER,
                    bytemuck::bytes_of(scene),
                    glow::DYNAMIC_DRAW,
                );
                gl.bind_buffer_base(glow::UNIFORM_BUFFER, 0, Some(buffer));
                let [count, balls, ..] = scene.count;
                gl.draw_arrays_instanced(glow::TRIANGLES, 0, BOX_VERTICES as i32, balls as i32);
                // The balls: instances from `balls` on, through `count.z` (WebGL2 has no first
                // instance).
                let z = std::mem::offset_of!(Scene, count) + 8;
                gl.buffer_sub_data_u8_slice(glow::UNIFORM_BUFFER, z as i32, &balls.to_ne_bytes());
                gl.draw_arrays_instanced(
                    glow::TRIANGLES,
                    0,
                    BALL_VERTICES as i32,
                    (count - balls) as i32,
                );
            }
            gl.bind_buffer_base(glow::UNIFORM_BUFFER, 0, None);
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::CULL_FACE);
            let fence = gl.fence_sync(glow::SYNC_GPU_COMMANDS_COMPLETE, 0);
            *self.drawn.borrow_mut() = fence.ok();
        }
        gl_errors(&self.gl)
    }

    fn canvas(&self) -> Result<Canvas> {
        Ok(self.canvas.clone())
    }
}
