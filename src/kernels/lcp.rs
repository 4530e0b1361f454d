//! The LCP solvers' kernels: projected Jacobi in one compute dispatch, and one pass of the
//! wall's contact LCP with friction: projected Jacobi, or accelerated with momentum.

use std::borrow::Cow;

use super::{repeat_lines, Compute, Kernel};

/// Most texels of A each thread of [`lcp_jacobi`] keeps in registers.
pub const LCP_MAX_REGISTERS: usize = 16;

/// Workgroup memory of [`lcp_jacobi`] besides x: the partial sums.
pub const LCP_PARTIAL_BYTES: usize = 256 * 16;

/// Projected Jacobi for the LCP, every iteration in one dispatch: inputs A, b, x0; parameters
/// omega and the iteration count. `x_words` (a multiple of 4, at least 4 texel rows' worth and
/// `registers * 256 / block_rows`) words of x in workgroup memory; blocks of `block_rows` (1, 2
/// or 4) texel rows; `registers` texels of A per thread kept in registers (0 for none);
/// `workgroups` workgroups for `height` texel rows of x. With `friction`, the wall's contact
/// LCP: inputs d = 1 / diag(A) and e = mu too, and the friction projection (see the shader);
/// without, d and e are bound but unused.
pub fn lcp_jacobi(
    x_words: usize,
    block_rows: usize,
    registers: usize,
    height: usize,
    workgroups: usize,
    friction: bool,
) -> Kernel {
    debug_assert!([1, 2, 4].contains(&block_rows) && registers <= LCP_MAX_REGISTERS);
    Kernel {
        name: format!("lcp_jacobi_{x_words}_{block_rows}_{registers}_{friction}").into(),
        inputs: &["a", "b", "c", "d", "e"],
        wgsl: repeat_lines(
            &repeat_lines(
                &repeat_lines(
                    include_str!("../../shaders/solvers/lcp_jacobi.wgsl"),
                    "{m}",
                    registers,
                ),
                "{p}",
                256 / block_rows / 16 - 1,
            ),
            "{q}",
            16,
        )
        .replace("{XW}", &x_words.to_string())
        .replace("{BR}", &block_rows.to_string())
        .replace("{REG}", &registers.to_string())
        .replace("{FRICTION}", &friction.to_string())
        .into(),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (1, height.div_ceil(workgroups.max(1))),
            scratch_words: 1 + 2 * x_words,
        }),
    }
}

/// A contact kernel's body: `shaders/solvers/contact_layout.*` (the wrap of contacts into
/// segments, written once) put before `shaders/solvers/<name>.*`.
macro_rules! contact_kernel {
    ($name:literal, $inputs:expr, $outputs:expr) => {
        Kernel {
            name: Cow::Borrowed($name),
            inputs: $inputs,
            wgsl: Cow::Borrowed(concat!(
                include_str!("../../shaders/solvers/contact_layout.wgsl"),
                include_str!(concat!("../../shaders/solvers/", $name, ".wgsl"))
            )),
            glsl: Cow::Borrowed(concat!(
                include_str!("../../shaders/solvers/contact_layout.glsl"),
                include_str!(concat!("../../shaders/solvers/", $name, ".glsl"))
            )),
            outputs: $outputs,
            compute: None,
        }
    };
}

/// One projected Jacobi iteration of the wall's contact LCP (see `src/physics/lcp.rs`, and
/// `src/solver/contact_wrap.rs` for the wrap into segments): inputs matrix, neighbour lists, x,
/// b, 1/diag, mu; params omega, blocks per contact, dense.
pub const CONTACT_JACOBI: Kernel =
    contact_kernel!("contact_jacobi", &["a", "b", "c", "d", "e", "f"], 1);

/// One accelerated projected Jacobi iteration of the wall's contact LCP (Nesterov's momentum,
/// a restart per contact): inputs matrix, neighbour lists, y, x, b, 1/diag; params step, blocks
/// per contact, dense, mu; two render targets, the new x and the new y.
pub const CONTACT_NESTEROV: Kernel =
    contact_kernel!("contact_nesterov", &["a", "b", "c", "d", "e", "f"], 2);

/// Threads of a workgroup of [`CONTACT_NESTEROV_GROUP`].
pub const GROUP_THREADS: usize = 256;

/// Contacts one workgroup of [`CONTACT_NESTEROV_GROUP`] takes: four per thread.
pub const GROUP_MAX_CONTACTS: usize = 4 * GROUP_THREADS;

/// Every accelerated iteration of a block-layout contact LCP in ONE compute dispatch, one
/// workgroup per group of whole islands of at most [`GROUP_MAX_CONTACTS`] contact places:
/// inputs matrix, neighbour lists, x0, b, 1/diag, and the groups (texel g = (first contact,
/// end), 4G x 1); params step, blocks per contact, iterations, mu. Dispatched with
/// [`super::Program::with_workgroups`]`(G)`.
pub const CONTACT_NESTEROV_GROUP: Kernel = Kernel {
    name: Cow::Borrowed("contact_nesterov_group"),
    inputs: &["a", "b", "c", "d", "e", "f"],
    wgsl: Cow::Borrowed(concat!(
        include_str!("../../shaders/solvers/contact_layout.wgsl"),
        include_str!("../../shaders/solvers/contact_nesterov_group.wgsl")
    )),
    glsl: Cow::Borrowed(""),
    outputs: 1,
    compute: Some(Compute {
        per_group: (GROUP_MAX_CONTACTS, 4 * GROUP_MAX_CONTACTS),
        scratch_words: 0,
    }),
};
