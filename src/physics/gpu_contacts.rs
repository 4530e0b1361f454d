//! The narrow phase on the GPU: the first part of the frame that moves there (issue 34). The
//! CPU's broad phase ([`candidates`]) gives the pairs, the GPU tests them all at once in float32
//! (`shaders/physics/narrow_phase.wgsl`, the twin of [`super::find_contacts`]) and the contacts
//! come back in one read, in its order. WebGPU only: a compute kernel.
//!
//! Float32 changes what the float64 twin computes by rounding alone, except where two of its
//! choices are within rounding of each other: which cube's face is the reference (past
//! [`FACE_TIE`]), which four points of a clipped face to keep, whether a corner lies within
//! the margin.

use glam::DVec3;

use super::body::{Body, Shape};
use super::contact::{candidates, Candidate, Contact, FACE_TIE};
use crate::error::Result;
use crate::gpu::Gpu;
use crate::kernels::{self, Program, NARROW_PHASE_TEXELS};
use crate::layout::Layout;
use crate::solver::ContactWrap;

/// Texel columns per body in the bodies' texture: (centre, size), then the rotation's columns.
const BODY_TEXELS: usize = 4;

/// Where the GPU frame ([`super::gpu_frame`]) runs its narrow phase
/// ([`super::Settings::narrow_phase`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NarrowPhase {
    /// On the GPU where that is faster: a hardware adapter with WebGPU's compute path, and at
    /// least [`GPU_NARROW_PHASE_FROM`] bodies; elsewhere on the CPU.
    #[default]
    Auto,
    /// On the CPU, in float64 ([`super::find_contacts`]).
    Cpu,
    /// On the GPU, in float32 ([`gpu_contacts`]): WebGPU only.
    Gpu,
}

/// Bodies from which [`NarrowPhase::Auto`] runs the narrow phase on the GPU. On the H100
/// through Dawn (2026-11-27) it cut the frame's contacts part by about a fifth at 6000 cubes,
/// and lost to the CPU at 600 and 2040 (the read-back's wait); natively it won from 2040.
pub const GPU_NARROW_PHASE_FROM: usize = 4000;

impl NarrowPhase {
    /// Whether a frame of `bodies` bodies on `gpu` runs the narrow phase there.
    pub fn on_gpu(self, gpu: &Gpu, bodies: usize) -> bool {
        let caps = gpu.capabilities();
        match self {
            NarrowPhase::Auto => caps.compute && !caps.software && bodies >= GPU_NARROW_PHASE_FROM,
            NarrowPhase::Cpu => false,
            NarrowPhase::Gpu => true,
        }
    }
}

/// The contacts [`super::find_contacts`] finds among `bodies` (margin `margin` m, frame `dt`
/// s), with the narrow phase run on the GPU in float32, in the same order. Needs WebGPU's
/// compute path.
pub async fn gpu_contacts(
    gpu: &Gpu,
    bodies: &[Body],
    margin: f64,
    dt: f64,
) -> Result<Vec<Contact>> {
    gpu.capabilities()
        .needs_compute("the narrow phase on the GPU")?;
    let entries = entries(bodies, &candidates(bodies, margin, dt));
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let limit = gpu.tile_limit();
    let body_wrap = ContactWrap::new(bodies.len(), BODY_TEXELS, limit)?;
    let wrap = ContactWrap::new(entries.len(), NARROW_PHASE_TEXELS, limit)?;
    let upload = |data: &[f32], wrap: &ContactWrap, width: usize| {
        let (rows, cols) = wrap.shape(width);
        gpu.upload(&wrap.wrap(data, width, -1.0), rows, cols)
    };
    let texels = upload(&body_texels(bodies), &body_wrap, BODY_TEXELS)?;
    let mut pairs = Vec::with_capacity(4 * entries.len());
    for e in &entries {
        pairs.extend([e.a as f32, e.b as f32, e.margin as f32, 0.0]);
    }
    let pairs = upload(&pairs, &wrap, 1)?;
    let (rows, cols) = wrap.shape(NARROW_PHASE_TEXELS);
    let program = Program::new(
        kernels::narrow_phase(),
        vec![texels.layout(), pairs.layout()],
        Layout { rows, cols },
    )
    .with_params(&[FACE_TIE as f32]);
    let found = gpu.run(program, &[&texels, &pairs])?;
    let data = gpu.read(&found).await?;
    Ok(decode(&data, &wrap, |e| bodies[entries[e].a].position))
}

/// One run of the kernel: body `a` against body `b`, or against the ground under a cube's
/// corners 0-3 (`b` = -1; a ball's lowest point) or 4-7 (`b` = -2).
struct Entry {
    a: usize,
    b: i64,
    margin: f64,
}

/// The kernel's runs for `candidates`, in their order: a cube's ground in two halves of 4
/// corners, and none for a body whose lowest point is above the margin.
fn entries(bodies: &[Body], candidates: &[Candidate]) -> Vec<Entry> {
    let mut out = Vec::with_capacity(candidates.len());
    for c in candidates {
        let Some(b) = c.b else {
            let body = &bodies[c.a];
            if body.lowest() < c.margin {
                let halves = if matches!(body.shape, Shape::Cube { .. }) {
                    2
                } else {
                    1
                };
                out.extend((1..=halves).map(|h| Entry {
                    a: c.a,
                    b: -h,
                    margin: c.margin,
                }));
            }
            continue;
        };
        out.push(Entry {
            a: c.a,
            b: b as i64,
            margin: c.margin,
        });
    }
    out
}

/// The bodies' texels, 4 rows per body (the wrap's plain layout): (centre, half the edge or
/// minus the radius), then the rotation's columns, each with what float32 rounds off the
/// centre's x, y, z: float32 centres far from the world's origin lie up to 3e-5 m off at 355 m,
/// which the kernel's differences of centres would keep.
fn body_texels(bodies: &[Body]) -> Vec<f32> {
    let mut data = vec![0.0; 4 * BODY_TEXELS * bodies.len()];
    for (body, rows) in bodies.iter().zip(data.chunks_exact_mut(4 * BODY_TEXELS)) {
        let size = match body.shape {
            Shape::Cube { half } => half,
            Shape::Ball { radius } => -radius,
        };
        let (p, r) = (body.position, body.rotation());
        let low = |v: f64| v - f64::from(v as f32);
        let axis = |a: DVec3, v: f64| [a.x, a.y, a.z, low(v)];
        let texels = [
            [p.x, p.y, p.z, size],
            axis(r.x_axis, p.x),
            axis(r.y_axis, p.y),
            axis(r.z_axis, p.z),
        ];
        for (t, texel) in texels.iter().enumerate() {
            for (r, v) in texel.iter().enumerate() {
                rows[r * BODY_TEXELS + t] = *v as f32;
            }
        }
    }
    data
}

/// The contacts from the kernel's output (row-major, `wrap`'s shape at 6 texels a run), each
/// run's points moved back by the x and z of its first body's centre, `first(run)`.
fn decode(data: &[f32], wrap: &ContactWrap, first: impl Fn(usize) -> DVec3) -> Vec<Contact> {
    let (_, cols) = wrap.shape(NARROW_PHASE_TEXELS);
    let mut out = Vec::new();
    for e in 0..wrap.contacts {
        let origin = first(e);
        let (segment, row) = wrap.place(e);
        let texel = |k: usize| -> [f64; 4] {
            let x = NARROW_PHASE_TEXELS * segment + k;
            [0, 1, 2, 3].map(|r| f64::from(data[(4 * row + r) * cols + x]))
        };
        let [count, a, b, _] = texel(0);
        let [nx, ny, nz, _] = texel(1);
        for p in 0..count as usize {
            let [x, y, z, depth] = texel(2 + p);
            out.push(Contact {
                a: a as usize,
                b: (b >= 0.0).then_some(b as usize),
                point: DVec3::new(x + origin.x, y, z + origin.z),
                normal: DVec3::new(nx, ny, nz),
                depth,
            });
        }
    }
    out
}
