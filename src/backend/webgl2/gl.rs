//! What the WebGL2 backend's context and its scene renderer share: linking shaders, and turning
//! the context's errors into texla's.

use glow::HasContext;

use crate::error::{Error, Result};

/// Why a program was not made: the step that failed and what GL said.
pub(super) struct LinkFailure {
    /// "vertex shader", "fragment shader", "link" or "program".
    pub(super) step: &'static str,
    /// The GL info log (or the error of creating an object).
    pub(super) log: String,
}

impl LinkFailure {
    /// The failure as one `Error::Gpu` naming `what` failed.
    pub(super) fn into_error(self, what: &str) -> Error {
        Error::Gpu(match self.step {
            "link" => format!("{what} did not link: {}", self.log),
            "program" => format!("{what}: {}", self.log),
            step => format!("{what} did not compile ({step}): {}", self.log),
        })
    }
}

/// Compiles and links a vertex and a fragment shader; a failure carries the GL info log.
pub(super) fn link(
    gl: &glow::Context,
    vertex: &str,
    fragment: &str,
) -> std::result::Result<glow::Program, LinkFailure> {
    let failed = |step, log| LinkFailure { step, log };
    // SAFETY: shader and program objects of this context, deleted on every error path.
    unsafe {
        let program = gl.create_program().map_err(|e| failed("program", e))?;
        let mut shaders = Vec::new();
        let mut failure = None;
        for (stage, step, source) in [
            (glow::VERTEX_SHADER, "vertex shader", vertex),
            (glow::FRAGMENT_SHADER, "fragment shader", fragment),
        ] {
            let shader = match gl.create_shader(stage) {
                Ok(shader) => shader,
                Err(e) => {
                    failure.get_or_insert(failed("program", e));
                    continue;
                }
            };
            gl.shader_source(shader, source);
            gl.compile_shader(shader);
            if !gl.get_shader_compile_status(shader) && failure.is_none() {
                failure = Some(failed(step, gl.get_shader_info_log(shader)));
            }
            gl.attach_shader(program, shader);
            shaders.push(shader);
        }
        if failure.is_none() {
            gl.link_program(program);
            if !gl.get_program_link_status(program) {
                failure = Some(failed("link", gl.get_program_info_log(program)));
            }
        }
        for shader in shaders {
            gl.detach_shader(program, shader);
            gl.delete_shader(shader);
        }
        match failure {
            Some(failure) => {
                gl.delete_program(program);
                Err(failure)
            }
            None => Ok(program),
        }
    }
}

/// The context's pending error as an `Error::Gpu`, if any.
pub(super) fn gl_errors(gl: &glow::Context) -> Result<()> {
    // SAFETY: queries on a live context.
    let code = unsafe { gl.get_error() };
    match code {
        glow::NO_ERROR => Ok(()),
        glow::CONTEXT_LOST => Err(Error::Gpu("the WebGL2 context was lost".into())),
        glow::OUT_OF_MEMORY => Err(Error::Gpu("WebGL2 ran out of memory".into())),
        other => Err(Error::Gpu(format!("WebGL2 error 0x{other:04x}"))),
    }
}
