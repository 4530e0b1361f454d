//! The soft step on the GPU, from the matrix's factors (`physics::ContactLcp::solve_soft` is
//! its float64 twin and explains the step). On a hardware WebGPU adapter every substep runs
//! in one dispatch, a workgroup per group of islands
//! (`shaders/solvers/contact_soft_group.wgsl`); elsewhere in fragment passes. The state is
//! three impulse vectors of the contacts' shape: T, the finished substeps' impulses; S, T plus
//! this substep's (what the bodies' velocities are made from); P, the impulses behind the
//! displacement. Per substep:
//!
//! ```text
//!   separations   shift = M^-1 J^T P, then T's fourth value = s      (contact_soft_separation)
//!   soft sweeps   `sweeps` times, per colour: v = M^-1 J^T S, the colour's normal rows step S
//!                 (contact_soft_step)
//!   move          P += h S
//!   separations   again, after the move
//!   rigid sweep   per colour: v, then the colour's normal and friction rows step S
//!   next          T = S, S = 2 S - T: the substep's impulses applied again (the warm start)
//! ```
//!
//! The passes: 6 and 2 (sweeps + 1) per colour a substep, 408 a frame for the standing wall's
//! 16 colours and 2 soft sweeps.

use super::contact::{check_mu, velocities, ContactPath};
use super::{ContactSystem, FactorSystem, IslandGroups};
use crate::error::{Error, Result};
use crate::gpu::{ops, Gpu};
use crate::kernels::{self, Expr, Func2, Program};
use crate::layout::Layout;
use crate::matrix::Matrix;

/// Most substeps a frame: each is 6 passes and 4 per colour, recorded at once.
pub const MAX_SUBSTEPS: usize = 64;

/// The numbers of one soft step ([`solve_soft`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoftStep {
    /// Substeps (at least 1).
    pub substeps: usize,
    /// Soft sweeps of the normal rows a substep, before its rigid sweep (at least 1).
    pub sweeps: usize,
    /// The frame's length, s.
    pub dt: f32,
    /// Gravity along -y, m/s^2 (the velocities b was made from hold the whole frame's).
    pub gravity: f32,
    /// The spring's correction rate (1/s), and its factors on the effective mass and on the
    /// impulse already applied, for a substep (`physics::soft_numbers` makes them).
    pub spring: (f32, f32, f32),
    /// The largest correction velocity, m/s.
    pub max_correction: f32,
    /// Coulomb friction coefficient, at least 0.
    pub mu: f32,
}

/// The soft step of `system` (the block layout with its factors, b with no correction target,
/// J's texel 6 the separations at the frame's start) from its warm start `system.x0` (an
/// impulse over a frame): the impulses over the frame (what the velocities change by) and the
/// impulses behind the displacement (N s^2), 4 rows per contact as `x0`.
pub fn solve_soft(gpu: &Gpu, system: &ContactSystem, soft: SoftStep) -> Result<(Matrix, Matrix)> {
    solve_soft_on(gpu, system, soft, ContactPath::Auto)
}

/// [`solve_soft`] on `path`: [`ContactPath::Dispatch`] (every substep in one compute dispatch
/// for both results; WebGPU) or [`ContactPath::Factors`] (fragment passes, any backend);
/// `Auto` takes the dispatch on a hardware adapter and the passes elsewhere (a CPU that
/// emulates a GPU runs a workgroup on one core: on SwiftShader the dispatch took 181 ms a
/// frame of the wall, the passes 63).
pub fn solve_soft_on(
    gpu: &Gpu,
    system: &ContactSystem,
    soft: SoftStep,
    path: ContactPath,
) -> Result<(Matrix, Matrix)> {
    let f = check(system, &soft)?;
    let caps = gpu.capabilities();
    let groups = f.groups.as_ref();
    let dispatch_here = caps.compute && !caps.software && groups.is_some();
    match path {
        ContactPath::Auto if dispatch_here => {}
        ContactPath::Auto | ContactPath::Factors => return passes(gpu, system, f, soft),
        ContactPath::Dispatch { workgroups: None } => {
            caps.needs_compute("the soft step's dispatch")?
        }
        ContactPath::Dispatch { .. } => {
            return Err(Error::Unsupported(
                "the soft step's dispatch runs one workgroup per group of islands: workgroups \
                 does not apply"
                    .into(),
            ))
        }
        ContactPath::Rows => {
            return Err(Error::Unsupported(
                "the soft step runs from the matrix's factors, not over A's rows".into(),
            ))
        }
    }
    let groups = groups.ok_or_else(|| {
        Error::Unsupported("the soft step's dispatch runs from the matrix's factors".into())
    })?;
    dispatch(gpu, system, f, groups, soft)
}

/// The soft step in fragment passes (see the module's text).
fn passes(
    gpu: &Gpu,
    system: &ContactSystem,
    f: &FactorSystem,
    soft: SoftStep,
) -> Result<(Matrix, Matrix)> {
    let n = soft.substeps;
    let h = soft.dt / n as f32;
    let mut t = gpu.fill(system.x0.rows(), system.x0.cols(), 0.0)?;
    let mut p = t.clone();
    let mut s = gpu.map(&ops::scale(1.0 / n as f32), &[&system.x0])?;
    // 2 S - T: the next substep's S.
    let again = Expr::call2(
        Func2::Sub,
        Expr::call2(Func2::Mul, Expr::Input(0), Expr::Const(2.0)),
        Expr::Input(1),
    );
    for k in 1..=n {
        let late = (n - k) as f32;
        let mut early = h * (1..k).map(|j| (n - j) as f32).sum::<f32>();
        let mut start = h * (k - 1) as f32;
        for sweep in 0..=soft.sweeps {
            let soft_sweep = sweep < soft.sweeps;
            // The separations: before the first soft sweep and after the move.
            if sweep == 0 || !soft_sweep {
                let shift = velocities(gpu, f, &p)?;
                let inputs = [&f.jacobian, &shift, &t, &system.b];
                t = gpu.run(
                    Program::new(
                        kernels::contact_soft_separation(),
                        inputs.iter().map(|m| m.layout()).collect(),
                        t.layout(),
                    )
                    .with_params(&[start, early * soft.gravity * h]),
                    &inputs,
                )?;
            }
            let (rate, mass, keep) = if soft_sweep {
                soft.spring
            } else {
                (0.0, 1.0, 0.0)
            };
            let mu = if soft_sweep { -1.0 } else { soft.mu };
            for colour in 0..f.colours {
                let v = velocities(gpu, f, &s)?;
                let inputs = [&f.jacobian, &v, &s, &t, &system.b, &system.inv_diag];
                let params = [
                    colour as f32,
                    mu,
                    h,
                    late * soft.gravity * h,
                    rate,
                    mass,
                    keep,
                ];
                s = gpu.run(
                    Program::new(
                        kernels::contact_soft_step(),
                        inputs.iter().map(|m| m.layout()).collect(),
                        s.layout(),
                    )
                    .with_params(&[&params[..], &[soft.max_correction]].concat()),
                    &inputs,
                )?;
            }
            if sweep + 1 == soft.sweeps {
                p = gpu.map(&ops::add_scaled(h), &[&p, &s])?;
                (start, early) = (start + h, early + h * late);
            }
        }
        if k < n {
            let next = gpu.map(&again, &[&s, &t])?;
            t = std::mem::replace(&mut s, next);
        }
    }
    Ok((s, p))
}

/// The soft step in one compute dispatch (WebGPU), a workgroup per group of islands:
/// `shaders/solvers/contact_soft_group.wgsl` writes the impulses and the impulses behind the
/// displacement side by side, copied apart after.
fn dispatch(
    gpu: &Gpu,
    system: &ContactSystem,
    f: &FactorSystem,
    groups: &IslandGroups,
    soft: SoftStep,
) -> Result<(Matrix, Matrix)> {
    let h = soft.dt / soft.substeps as f32;
    let (rate, mass, keep) = soft.spring;
    let params = [
        f.body_width as f32,
        f.colours as f32,
        soft.mu,
        h,
        soft.gravity * h,
        rate,
        mass,
        keep,
    ];
    let inputs = [
        &f.jacobian,
        &f.bodies,
        &system.x0,
        &system.b,
        &system.inv_diag,
        &groups.texels,
    ];
    let kernel = kernels::contact_soft_group(
        super::contact::group_threads(gpu),
        (soft.substeps, soft.sweeps),
        soft.max_correction,
        groups.wide,
    );
    let (rows, cols) = (system.x0.rows(), system.x0.cols());
    // Both results side by side, then each its own matrix.
    let both = gpu.run(
        Program::new(
            kernel,
            inputs.iter().map(|m| m.layout()).collect(),
            Layout {
                rows,
                cols: 2 * cols,
            },
        )
        .with_params(&params)
        .with_workgroups(groups.count),
        &inputs,
    )?;
    Ok((
        gpu.columns(&both, 0, cols)?,
        gpu.columns(&both, cols, cols)?,
    ))
}

/// The factors the soft step reads, after checking its numbers.
fn check<'a>(system: &'a ContactSystem, soft: &SoftStep) -> Result<&'a FactorSystem> {
    check_mu(soft.mu)?;
    let (rate, mass, keep) = soft.spring;
    let numbers = [soft.dt, soft.gravity, rate, mass, keep, soft.max_correction];
    if !(1..=MAX_SUBSTEPS).contains(&soft.substeps) || !(1..=MAX_SUBSTEPS).contains(&soft.sweeps) {
        return Err(Error::Argument(format!(
            "the soft step takes 1 to {MAX_SUBSTEPS} substeps and sweeps, got {} and {}",
            soft.substeps, soft.sweeps
        )));
    }
    if soft.dt <= 0.0 || numbers.iter().any(|v| !v.is_finite() || *v < 0.0) {
        return Err(Error::Argument(
            "the soft step needs a frame longer than 0 and finite numbers >= 0".into(),
        ));
    }
    system.factors.as_ref().ok_or_else(|| {
        Error::Unsupported(
            "the soft step runs from the matrix's factors: the block layout with them".into(),
        )
    })
}
