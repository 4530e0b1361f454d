//! The LCP solvers' kernels: projected Jacobi in one compute dispatch, and one pass of the
//! wall's contact LCP with friction: projected Jacobi, or accelerated with momentum (from A's
//! block rows in one pass, or from its factors in two, or every iteration in one dispatch).

use std::borrow::Cow;

use super::{Compute, Kernel};

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
        wgsl: super::Template::new(
            "solvers/lcp_jacobi.wgsl",
            built_shader!("solvers", "lcp_jacobi", ".wgsl"),
        )
        .repeat_lines("m", registers)
        .repeat_lines("p", 256 / block_rows / 16 - 1)
        .repeat_lines("q", 16)
        .register("XW", x_words)
        .register("BR", block_rows)
        .register("REG", registers)
        .register("FRICTION", friction)
        .complete()
        .into(),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (1, height.div_ceil(workgroups.max(1))),
            scratch_words: 1 + 2 * x_words,
            unchecked: false,
        }),
    }
}

/// `shaders/solvers/contact_layout.*`: the wrap of contacts into segments, written once and
/// put before every contact kernel's body (`library_kernel!`).
pub(super) const CONTACT_LAYOUT: (&str, &str) = (
    built_shader!("solvers", "contact_layout", ".wgsl"),
    built_shader!("solvers", "contact_layout", ".glsl"),
);

/// One projected Jacobi iteration of the wall's contact LCP (see `src/physics/lcp.rs`, and
/// `src/solver/contact_wrap.rs` for the wrap into segments): inputs matrix, neighbour lists, x,
/// b, 1/diag, mu; params omega, blocks per contact, dense.
pub fn contact_jacobi() -> Kernel {
    contact_kernel!("contact_jacobi", &["a", "b", "c", "d", "e", "f"], 1)
}

/// One accelerated projected Jacobi iteration of the wall's contact LCP (Nesterov's momentum,
/// a restart per contact): inputs matrix, neighbour lists, y, x, b, 1/diag; params step, blocks
/// per contact, dense, mu; two render targets, the new x and the new y.
pub fn contact_nesterov() -> Kernel {
    contact_kernel!("contact_nesterov", &["a", "b", "c", "d", "e", "f"], 2)
}

/// The first pass of a factored accelerated iteration (`src/solver/contact_factors.rs`): the
/// bodies' velocities v = M^-1 J^T y, two texels per body slot (linear, angular) in the bodies'
/// wrap: inputs J, the bodies, y; param texel columns per body.
pub fn contact_velocities() -> Kernel {
    contact_kernel!("contact_velocities", &["a", "b", "c"], 1)
}

/// The second pass of a factored accelerated iteration: [`contact_nesterov`]'s step with A y as
/// J v + R y: inputs J, v (from [`contact_velocities`]), y, x, b, 1/diag; params step, mu,
/// regularisation; two render targets, the new x and the new y.
pub fn contact_nesterov_factored() -> Kernel {
    contact_kernel!(
        "contact_nesterov_factored",
        &["a", "b", "c", "d", "e", "f"],
        2
    )
}

/// One colour's pass of graph-coloured projected Gauss-Seidel (`src/solver/contact_colours.rs`):
/// the contacts of the colour solve their own blocks from J v + R x, the others keep their
/// impulses: inputs J (with the colours and A_cc's off-diagonal), v (from
/// [`contact_velocities`]), x, b, 1/diag; params colour, mu, regularisation.
pub fn contact_gauss_seidel() -> Kernel {
    contact_kernel!("contact_gauss_seidel", &["a", "b", "c", "d", "e"], 1)
}

/// The soft step's separations after the displacement so far (`src/physics/soft.rs`): T with
/// each contact's separation in its fourth value: inputs J, the bodies' displacement (from
/// [`contact_velocities`] over P), T, b (J's texel 6 holds the separation at the frame's
/// start); params start, early.
pub fn contact_soft_separation() -> Kernel {
    contact_kernel!("contact_soft_separation", &["a", "b", "c", "d"], 1)
}

/// One colour's pass of the soft step (`src/physics/soft.rs`): the contacts of the colour step
/// S, the impulses applied so far, from J v: inputs J, v (from [`contact_velocities`] over S),
/// S, T (the finished substeps' impulses, the separation in w), b, 1/diag; params colour, mu
/// (negative: the soft sweep), h, late g h, the spring's rate, mass and impulse factors, the
/// largest correction.
pub fn contact_soft_step() -> Kernel {
    contact_kernel!("contact_soft_step", &["a", "b", "c", "d", "e", "f"], 1)
}

/// Contacts a group of small islands fills up to: one per thread of a hardware workgroup.
pub const GROUP_PACK: usize = 256;

/// Contacts one workgroup of [`contact_nesterov_group`] takes.
pub const GROUP_MAX_CONTACTS: usize = 1024;

/// Bodies one workgroup of [`contact_nesterov_group`] takes: its workgroup memory holds 3
/// floats per contact and 6 per body, within WebGPU's 16 KiB.
pub const GROUP_MAX_BODIES: usize = 170;

/// Every accelerated iteration of a contact LCP in ONE compute dispatch, its matrix as its
/// factors (`src/solver/contact_factors.rs`), one workgroup of `threads` threads (a divisor of
/// [`GROUP_MAX_CONTACTS`]) per group of whole islands of at most [`GROUP_MAX_CONTACTS`]
/// contacts and [`GROUP_MAX_BODIES`] bodies, or per wide group (one island past that; `wide`:
/// the wide groups' contacts and bodies in all, their state in storage): inputs J, the bodies,
/// x0, b, 1/diag, the groups (`solver::IslandGroups`, 4G x 2); params step, texel columns per
/// body, iterations, mu, regularisation. Dispatched with
/// [`super::Program::with_workgroups`]`(G)`. A hardware GPU wants 256 threads to hide its
/// latency; a CPU that emulates one (SwiftShader) runs a workgroup on one core, where fewer
/// threads mean cheaper barriers, and `cached` keeps what a thread reads every iteration (its
/// contacts' texels, its bodies' inertia and their contact sides' rows of J) in its private
/// memory, plain memory there, instead of fetching it again each time.
pub fn contact_nesterov_group(threads: usize, cached: bool, wide: (usize, usize)) -> Kernel {
    debug_assert_eq!(GROUP_MAX_CONTACTS % threads, 0);
    let per_thread = GROUP_MAX_CONTACTS / threads;
    let template = super::Template::new(
        "solvers/contact_nesterov_group.wgsl",
        built_shader!("solvers", "contact_nesterov_group", ".wgsl"),
    )
    .register("THREADS", threads)
    .register("CACHED", if cached { per_thread } else { 1 });
    let name = format!(
        "contact_nesterov_group_{threads}{}",
        if cached { "_cached" } else { "" }
    );
    group_kernel(name, template, wide_words(wide, (7, 6)))
}

/// Words of storage the wide groups' state takes, `wide` their (contacts, bodies), `words`
/// each's (0 where there is no wide group). The pipeline is the same whatever the size.
fn wide_words(wide: (usize, usize), words: (usize, usize)) -> usize {
    wide.0 * words.0 + wide.1 * words.1
}

/// A kernel of one workgroup per group of whole islands: the contact layout, the groups' state
/// (`contact_group.wgsl`), then `body`, with `scratch_words` of storage for the wide groups (0:
/// none); inputs J, the bodies, x0, b, 1/diag, the groups.
fn group_kernel(name: String, body: super::Template, scratch_words: usize) -> Kernel {
    let wide = scratch_words > 0;
    let body = body
        .register("WIDE", wide)
        .register(
            "SCRATCH",
            if wide {
                "@group(0) @binding(8) var<storage, read_write> scratch: array<f32>;"
            } else {
                "var<private> scratch: array<f32, 1>;"
            },
        )
        .complete();
    let group = built_shader!("solvers", "contact_group", ".wgsl");
    Kernel {
        name: if wide { name + "_wide" } else { name }.into(),
        inputs: &["a", "b", "c", "d", "e", "f"],
        wgsl: [CONTACT_LAYOUT.0, group, &body].concat().into(),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (GROUP_MAX_CONTACTS, 4 * GROUP_MAX_CONTACTS),
            scratch_words,
            unchecked: false,
        }),
    }
}

/// The soft step with every substep in ONE compute dispatch (`shaders/solvers/
/// contact_soft_group.wgsl`), a workgroup of `threads` threads per group of whole islands or
/// wide group as [`contact_nesterov_group`] (its inputs and `wide`), `substeps` substeps,
/// corrections no faster than `max_correction` m/s. Its output is twice as wide as the
/// impulses: the impulses over the frame, then the impulses behind the displacement. Params:
/// texel columns per body, colours, mu, h, g h, the spring's rate, mass and impulse factors.
pub fn contact_soft_group(
    threads: usize,
    (substeps, sweeps): (usize, usize),
    max_correction: f32,
    wide: (usize, usize),
) -> Kernel {
    debug_assert_eq!(GROUP_MAX_CONTACTS % threads, 0);
    let template = super::Template::new(
        "solvers/contact_soft_group.wgsl",
        built_shader!("solvers", "contact_soft_group", ".wgsl"),
    )
    .register("THREADS", threads)
    .register("SUBSTEPS", substeps)
    .register("SWEEPS", sweeps)
    .register("MAX_CORRECTION", format!("{max_correction:?}"));
    group_kernel(
        format!("contact_soft_group_{threads}_{substeps}_{sweeps}"),
        template,
        wide_words(wide, (10, 18)),
    )
}
