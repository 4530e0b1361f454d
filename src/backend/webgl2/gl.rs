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

/// A program whose shaders were handed to GL to compile and link, not yet asked how that went
/// (asking waits for the compiler).
pub(super) struct Linking {
    program: glow::Program,
    /// The vertex and fragment shaders, attached, in that order.
    shaders: Vec<glow::Shader>,
}

/// Compiles and links a vertex and a fragment shader; a failure carries the GL info log.
pub(super) fn link(
    gl: &glow::Context,
    vertex: &str,
    fragment: &str,
) -> std::result::Result<glow::Program, LinkFailure> {
    linked(gl, start_link(gl, vertex, fragment)?)
}

/// Hands a vertex and a fragment shader to GL to compile and link, without waiting for either:
/// with `KHR_parallel_shader_compile` the browser does it meanwhile (see [`is_linked`]).
pub(super) fn start_link(
    gl: &glow::Context,
    vertex: &str,
    fragment: &str,
) -> std::result::Result<Linking, LinkFailure> {
    // SAFETY: shader and program objects of this context, deleted on every error path.
    unsafe {
        let program = gl.create_program().map_err(|log| LinkFailure {
            step: "program",
            log,
        })?;
        let mut shaders = Vec::new();
        for (stage, source) in [
            (glow::VERTEX_SHADER, vertex),
            (glow::FRAGMENT_SHADER, fragment),
        ] {
            let shader = match gl.create_shader(stage) {
                Ok(shader) => shader,
                Err(log) => {
                    drop_linking(gl, Linking { program, shaders });
                    return Err(LinkFailure {
                        step: "program",
                        log,
                    });
                }
            };
            gl.shader_source(shader, source);
            gl.compile_shader(shader);
            gl.attach_shader(program, shader);
            shaders.push(shader);
        }
        gl.link_program(program);
        Ok(Linking { program, shaders })
    }
}

/// Whether GL has finished compiling and linking (`KHR_parallel_shader_compile`'s completion
/// status, which never waits): [`linked`] then answers at once.
pub(super) fn is_linked(gl: &glow::Context, linking: &Linking) -> bool {
    // SAFETY: a query on a program of this context (only asked where the extension is on).
    unsafe { gl.get_program_completion_status(linking.program) }
}

/// The program once GL has compiled and linked it (waiting for it if it has not), or why not:
/// a shader's compile log where one failed, else the link log.
pub(super) fn linked(
    gl: &glow::Context,
    linking: Linking,
) -> std::result::Result<glow::Program, LinkFailure> {
    // SAFETY: queries on objects of this context, deleted once below.
    unsafe {
        if gl.get_program_link_status(linking.program) {
            let program = linking.program;
            for shader in linking.shaders {
                gl.detach_shader(program, shader);
                gl.delete_shader(shader);
            }
            return Ok(program);
        }
        let steps = ["vertex shader", "fragment shader"];
        let failure = steps
            .iter()
            .zip(&linking.shaders)
            .find(|(_, &shader)| !gl.get_shader_compile_status(shader))
            .map(|(&step, &shader)| LinkFailure {
                step,
                log: gl.get_shader_info_log(shader),
            })
            .unwrap_or_else(|| LinkFailure {
                step: "link",
                log: gl.get_program_info_log(linking.program),
            });
        drop_linking(gl, linking);
        Err(failure)
    }
}

/// Deletes a program and its shaders that will not be used.
pub(super) fn drop_linking(gl: &glow::Context, linking: Linking) {
    // SAFETY: objects of this context, deleted once.
    unsafe {
        for shader in linking.shaders {
            gl.detach_shader(linking.program, shader);
            gl.delete_shader(shader);
        }
        gl.delete_program(linking.program);
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
