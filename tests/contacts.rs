//! Browser tests of the narrow phase on the GPU (`physics::gpu_contacts`) against its float64
//! twin (`physics::find_contacts`) on the same bodies: the standing wall, the wall as the ball
//! knocks it down, and heaps of tilted cubes and balls; and of the GPU frame with it. WebGPU runs
//! them; WebGL2 has no compute shader and says so.
#![cfg(target_arch = "wasm32")]

mod common;

use common::device;
use common::wall::{largest_gap, now, standing, throw};
use glam::{DQuat, DVec3};
use texla::backend::BackendKind;
use texla::error::Error;
use texla::physics::{
    find_contacts, gpu_contacts, gpu_frame, Body, Contact, Mode, NarrowPhase, Settings,
    GPU_NARROW_PHASE_FROM,
};
use texla::reference::Rng;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// How far a float32 point or depth may lie from the float64 one, m: the kernel's coordinates
/// (relative to each pair's first body in x and z) are below 4 m, where float32's unit in the
/// last place is 4.8e-7 m, and each value comes out of a few dozen roundings of them (0.004%
/// of the wall's 0.5 m edge).
const TOLERANCE: f64 = 2e-5;

/// Checks the GPU's contacts against the float64 ones, pair by pair: the same pairs touch, in
/// the same order, and each pair's points match: as many, each GPU point within [`TOLERANCE`]
/// of a float64 point of its pair with the same depth within it, and the same normal from the
/// same body (with the bodies swapped, the normal negated). Where float64 chose between near
/// equals (which cube's face is the reference, which four of a clipped face's points to keep),
/// float32 may choose the other: such a pair's normal is within 0.01 of float64's, each point
/// within 1 cm of one of float64's points with its depth within 1 mm. Returns (points
/// compared, pairs that chose the other way).
fn same_contacts(scene: &str, gpu: &[Contact], exact: &[Contact]) -> (usize, usize) {
    let key = |c: &Contact| match c.b {
        Some(b) => (c.a.min(b), c.a.max(b), false),
        None => (c.a, c.a, true),
    };
    let pairs = |list: &[Contact]| {
        let mut p: Vec<_> = list.iter().map(key).collect();
        p.dedup();
        p
    };
    let exact_pairs = pairs(exact);
    assert_eq!(
        pairs(gpu),
        exact_pairs,
        "{scene}: the pairs in contact, in order"
    );
    let mut flipped = 0;
    for pair in exact_pairs {
        let mine: Vec<&Contact> = gpu.iter().filter(|c| key(c) == pair).collect();
        let theirs: Vec<&Contact> = exact.iter().filter(|c| key(c) == pair).collect();
        let matches = |(point, depth, normal): (f64, f64, f64)| {
            mine.len() == theirs.len()
                && mine.iter().all(|c| {
                    // The normal points into body a: with the bodies swapped it is negated.
                    let e = theirs[0];
                    let n = if c.a == e.a { c.normal } else { -c.normal };
                    (n - e.normal).length() < normal
                        && theirs.iter().any(|e| {
                            (c.point - e.point).length() < point
                                && (c.depth - e.depth).abs() < depth
                        })
                })
        };
        if matches((TOLERANCE, TOLERANCE, TOLERANCE)) {
            continue;
        }
        assert!(
            matches((0.01, 0.001, 0.01)),
            "{scene}: {pair:?}: {mine:?} against float64's {theirs:?}"
        );
        flipped += 1;
    }
    (gpu.len(), flipped)
}

async fn compare(
    gpu: &texla::gpu::Gpu,
    scene: &str,
    bodies: &[Body],
    margin: f64,
) -> (usize, usize) {
    let dt = 1.0 / 60.0;
    let exact = find_contacts(bodies, margin, dt);
    let found = gpu_contacts(gpu, bodies, margin, dt).await.unwrap();
    same_contacts(scene, &found, &exact)
}

/// Cubes of three sizes and balls in a heap, every one tilted at random, many overlapping
/// deeply, some moving (speculative contacts), a few resting on or sunk into the ground.
fn heap(seed: u32) -> Vec<Body> {
    let mut rng = Rng::new(seed);
    let mut r = || rng.next_f64();
    (0..120)
        .map(|k| {
            let p = DVec3::new(3.0 * r() - 1.5, 2.0 * r() - 0.3, 3.0 * r() - 1.5);
            let mut b = if k % 9 == 0 {
                Body::ball(p, 0.15 + 0.2 * r(), 5.0, DVec3::ZERO)
            } else {
                Body::cube(p, 0.1 + 0.1 * (k % 3) as f64, 1.0, [1.0; 3])
            };
            let axis = DVec3::new(r() - 0.5, r() - 0.5, r() - 0.5).normalize();
            b.orientation = DQuat::from_axis_angle(axis, 6.0 * r());
            b.velocity = DVec3::new(r() - 0.5, r() - 0.5, r() - 0.5) * 4.0 * (k % 2) as f64;
            b
        })
        .collect()
}

async fn narrow_phase_matches_float64(kind: BackendKind) {
    let gpu = device(kind).await;
    let margin = Settings::default().margin;
    if !gpu.capabilities().compute {
        let bodies = standing(Mode::Blocks).bodies;
        match gpu_contacts(&gpu, &bodies, margin, 1.0 / 60.0).await {
            Err(Error::Unsupported(m)) => assert!(m.contains("needs WebGPU"), "{m}"),
            other => panic!("WebGL2 has no compute shader: {other:?}"),
        }
        return;
    }
    let mut tally = (0, 0);
    let mut add = |(points, flipped): (usize, usize)| {
        tally = (tally.0 + points, tally.1 + flipped);
    };
    let mut world = standing(Mode::Blocks);
    add(compare(&gpu, "the standing wall", &world.bodies, margin).await);
    // The wall as the ball knocks it down: cubes tumbling, edges and corners meeting.
    throw(&mut world);
    for frame in 1..=60 {
        world.step_cpu().unwrap();
        if frame % 6 == 0 {
            let scene = format!("frame {frame} after the throw");
            add(compare(&gpu, &scene, &world.bodies, margin).await);
        }
    }
    for seed in 1..=4 {
        add(compare(&gpu, &format!("heap {seed}"), &heap(seed), margin).await);
    }
    // Far from the origin, as the walls of a large scene are (10,000 walls reach 355 m), where
    // float32's unit in the last place of a coordinate (6.1e-5 m at 500 m) is past the
    // tolerance: the kernel works relative to each pair's first body.
    let far = DVec3::new(500.0, 0.0, -300.0);
    let moved = |bodies: &[Body]| -> Vec<Body> {
        let mut bodies = bodies.to_vec();
        for b in &mut bodies {
            b.position += far;
        }
        bodies
    };
    let wall = standing(Mode::Blocks).bodies;
    add(compare(&gpu, "the standing wall, 500 m away", &moved(&wall), margin).await);
    add(compare(&gpu, "heap 1, 500 m away", &moved(&heap(1)), margin).await);
    let (points, flipped) = tally;
    web_sys::console::log_1(
        &format!("{points} points, {flipped} pairs chose the other way").into(),
    );
    assert!(points > 1000, "{points} points compared");
    assert!(
        flipped * 50 < points,
        "{flipped} near ties went the other way"
    );
}

/// The GPU frame with its narrow phase on the GPU follows the one with it on the CPU: the wall
/// standing 30 frames within 0.1 mm (2.7e-5 m measured), then 8 frames of the ball's throw
/// within 5 cm (1.5 cm measured: the accelerated solver's 100 iterations, far from converged
/// while the ball ploughs through, carry the contacts' float32 rounding into the trajectories,
/// as `gpu_frames_follow_the_float64_wall` in tests/wall.rs finds for the solve's). On WebGL2
/// asking for it is a clear error, and `Auto` keeps it on the CPU wherever the adapter is a CPU.
async fn frames_follow_the_cpu_narrow_phase(kind: BackendKind) {
    let gpu = device(kind).await;
    let on = |narrow_phase| {
        let mut world = standing(Mode::Blocks);
        world.settings.narrow_phase = narrow_phase;
        world.settings.sleeping = false;
        world
    };
    assert!(!NarrowPhase::Auto.on_gpu(&gpu, GPU_NARROW_PHASE_FROM));
    let (mut mine, mut theirs) = (on(NarrowPhase::Gpu), on(NarrowPhase::Cpu));
    if !gpu.capabilities().compute {
        match gpu_frame(&gpu, &mut mine, &now).await {
            Err(Error::Unsupported(m)) => assert!(m.contains("needs WebGPU"), "{m}"),
            other => panic!("WebGL2 has no compute shader: {other:?}"),
        }
        return;
    }
    let mut gaps = Vec::new();
    for frame in 0..38 {
        if frame == 30 {
            throw(&mut mine);
            throw(&mut theirs);
        }
        gpu_frame(&gpu, &mut mine, &now).await.unwrap();
        gpu_frame(&gpu, &mut theirs, &now).await.unwrap();
        gaps.push(largest_gap(&mine, &theirs));
    }
    let standing = gaps[..30].iter().fold(0.0f64, |a, &b| a.max(b));
    let hit = gaps[37];
    web_sys::console::log_1(&format!("standing {standing:.1e} m, the hit {hit:.1e} m").into());
    assert!(standing < 1e-4, "standing: {standing} m apart");
    assert!(hit < 0.05, "after the throw: {hit} m apart");
}

#[wasm_bindgen_test]
async fn frames_follow_the_cpu_narrow_phase_webgpu() {
    frames_follow_the_cpu_narrow_phase(BackendKind::WebGpu).await;
}

#[wasm_bindgen_test]
async fn frames_follow_the_cpu_narrow_phase_webgl2() {
    frames_follow_the_cpu_narrow_phase(BackendKind::WebGl2).await;
}

#[wasm_bindgen_test]
async fn narrow_phase_matches_float64_webgpu() {
    narrow_phase_matches_float64(BackendKind::WebGpu).await;
}

#[wasm_bindgen_test]
async fn narrow_phase_matches_float64_webgl2() {
    narrow_phase_matches_float64(BackendKind::WebGl2).await;
}
