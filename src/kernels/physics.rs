//! The wall's physics on the GPU: the narrow phase (`shaders/physics/narrow_phase.wgsl`).

use std::borrow::Cow;
use std::sync::OnceLock;

use super::lcp::CONTACT_LAYOUT;
use super::{Compute, Kernel};

/// Texel columns of the narrow phase's output per candidate: a header, the normal and up to 4
/// points.
pub const NARROW_PHASE_TEXELS: usize = 6;

/// The narrow phase (compute only): inputs the bodies (4 texels each in their wrap) and the
/// candidates (1 texel each), output [`NARROW_PHASE_TEXELS`] texels per candidate in the
/// candidates' wrap; param 0 the tie between faces (`physics::FACE_TIE`).
pub fn narrow_phase() -> Kernel {
    static JOINED: OnceLock<String> = OnceLock::new();
    let wgsl = JOINED.get_or_init(|| {
        let body = super::Template::new(
            "physics/narrow_phase.wgsl",
            built_shader!("physics", "narrow_phase", ".wgsl"),
        )
        .register("TEXELS", NARROW_PHASE_TEXELS)
        .complete();
        [CONTACT_LAYOUT.0, &body].concat()
    });
    Kernel {
        name: Cow::Borrowed("narrow_phase"),
        inputs: &["a", "b"],
        wgsl: Cow::Borrowed(wgsl),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (NARROW_PHASE_TEXELS, 64),
            scratch_words: 0,
            unchecked: false,
        }),
    }
}
