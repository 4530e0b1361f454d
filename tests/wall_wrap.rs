//! Browser tests of the wall's contact system wrapped into segments (`ContactWrap`: contact c
//! at texel row c % H of segment c / H), each on both backends: against the plain layout, bit
//! for bit, and against float64; 100 walls past one texture; an island past a workgroup's
//! limits in the single dispatch; a long solve in chunks, cancelled. In a file of their own: in
//! `tests/wall.rs`'s one browser session, after its 30 s test, they made a later WebGPU test
//! hold the renderer past chromedriver's limit (three runs of three; the cause was not found).
#![cfg(target_arch = "wasm32")]

mod common;

use common::device;
use common::wall::{
    busy_layout, largest_difference, largest_gap, now, settings, throw, WRAPPING_LIMIT,
};
use texla::backend::BackendKind;
use texla::error::Error;
use texla::physics::{gpu_frame, soft_numbers, wall, Mode, Settings, WallSpec, World};
use texla::solver::{
    solve_contacts, solve_soft_on, ContactLayout, ContactMethod, ContactPath, ContactSolve,
    ContactSystem,
};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

on_both_backends! {
    async fn wrapped_contact_system_solves_as_one_segment(kind) {
        // The busy frame with textures of at most 384 texels a side: its 463 contacts wrap into
        // two segments. Every solver gives what it gives on the plain layout, bit for bit (the
        // same arithmetic in the same order, only the places differ), and the float64 twin's
        // answer within the bounds of the plain-layout tests.
        let gpu = device(kind).await;
        let (lcp, layout) = busy_layout();
        let step = -1.0 / lcp.lambda_max();
        let largest = gpu.tile_limit();
        let mut runs = Vec::new();
        for limit in [largest, WRAPPING_LIMIT] {
            gpu.set_tile_limit(limit).unwrap();
            let system = ContactSystem::upload(gpu.as_ref(), &layout).unwrap();
            let x0 = &system.x0;
            let nesterov = ContactSolve::nesterov(step as f32, lcp.mu as f32, 30);
            let mut solves = vec![
                ContactSolve::jacobi(-0.1, 30).on(ContactPath::Rows),
                nesterov.on(ContactPath::Rows),
                nesterov.on(ContactPath::Factors),
            ];
            if kind == BackendKind::WebGpu {
                solves.push(nesterov.on(ContactPath::Dispatch { workgroups: None }));
            }
            let mut got = Vec::new();
            for solve in solves {
                got.push(solve_contacts(gpu.as_ref(), &system, x0, solve, None).await.unwrap());
            }
            let mut read = Vec::new();
            for x in &got {
                let values = system.read(gpu.as_ref(), x).await.unwrap();
                read.push(values.iter().map(|&v| f64::from(v)).collect::<Vec<f64>>());
            }
            runs.push((system.wrap, read));
        }
        let (plain, wrapped) = (&runs[0], &runs[1]);
        assert_eq!(plain.0.segments, 1);
        let (segments, height) = (wrapped.0.segments, wrapped.0.height);
        assert!(segments == 2 && height <= WRAPPING_LIMIT, "{kind:?}: {:?}", wrapped.0);
        for (k, (a, b)) in plain.1.iter().zip(&wrapped.1).enumerate() {
            assert_eq!(a.len(), 4 * lcp.contacts.len());
            assert!(a == b, "{kind:?} solver {k}: the wrapped system differs from the plain one");
        }
        let jacobi = lcp.solve_jacobi(-0.1, 30);
        let nesterov = lcp.solve_nesterov(step, 30);
        let scale = nesterov.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(scale > 1.0, "the ball's frame has real impulses: {scale}");
        assert!(largest_difference(&wrapped.1[0], &jacobi) <= 1e-4 * scale);
        for got in &wrapped.1[1..] {
            assert!(largest_difference(got, &nesterov) <= 1e-3 * scale);
        }
        // The dense layout never wraps (4 columns per contact: 1812 > 384), and a limit too
        // small for even the blocks side by side is the same clear error.
        let e = ContactSystem::upload(gpu.as_ref(), &lcp.gpu_layout(Mode::Dense)).err().unwrap();
        assert!(e.to_string().contains("this device allows at most"), "{e}");
        gpu.set_tile_limit(64).unwrap();
        let e = ContactSystem::upload(gpu.as_ref(), &layout).err().unwrap();
        assert!(e.to_string().contains("this device allows at most"), "{e}");
        gpu.set_tile_limit(largest).unwrap();
    }

    async fn wall_frames_are_the_same_wrapped(kind) {
        // Frames of the default wall (standing, then the ball) in two segments, as
        // `gpu_frame` runs them, land every body exactly where the plain layout does; a
        // layout the segments cannot hold fails the frame with a clear message.
        let gpu = device(kind).await;
        let largest = gpu.tile_limit();
        let mut runs = Vec::new();
        for limit in [largest, WRAPPING_LIMIT] {
            gpu.set_tile_limit(limit).unwrap();
            let mut world = World::new(wall(&WallSpec::default()), Settings::default());
            for frame in 0..6 {
                if frame == 3 {
                    throw(&mut world);
                }
                gpu_frame(gpu.as_ref(), &mut world, &now).await.unwrap();
            }
            assert!(world.stats.contacts > WRAPPING_LIMIT, "{kind:?}: {} contacts", world.stats.contacts);
            runs.push(world.bodies);
        }
        assert!(runs[0] == runs[1], "{kind:?}: the wrapped frames moved the bodies elsewhere");
        let mut dense = World::new(wall(&WallSpec::default()), settings(Mode::Dense));
        let e = gpu_frame(gpu.as_ref(), &mut dense, &now).await.err().unwrap().to_string();
        assert!(e.contains("420 contacts do not fit the GPU") && e.contains("block layout"), "{e}");
        gpu.set_tile_limit(largest).unwrap();
    }

    async fn hundred_walls_step_past_one_texture(kind) {
        // 6000 cubes: 42,000 contacts, more than one texture has texel rows (8192 here, 32768
        // on an H100), wrapped into segments at the device's own limit. One frame at 4
        // iterations (a frame of 80 takes seconds on a CPU-emulated GPU) against the float64
        // twin of the same solve.
        let gpu = device(kind).await;
        let spec = WallSpec { walls: 100, ..WallSpec::default() };
        let settings = Settings { iterations: Some(4), ..Settings::default() };
        let mut world = World::new(wall(&spec), settings);
        let start = world.bodies.clone();
        let (lcp, impulses, _) = gpu_frame(gpu.as_ref(), &mut world, &now).await.unwrap();
        let limit = gpu.tile_limit();
        assert_eq!(lcp.contacts.len(), 42_000);
        assert!(lcp.contacts.len() > limit, "{kind:?}: 42000 contacts fit one texture of {limit}");
        let solve = world.contact_solve(&lcp);
        assert_eq!(solve.method, ContactMethod::Nesterov, "the default solver");
        let exact = lcp.solve_nesterov(f64::from(solve.step), 4);
        let scale = exact.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        let worst = exact
            .iter()
            .zip(&impulses)
            .flat_map(|(e, g)| (0..3).map(move |r| (e[r] - g[r]).abs()))
            .fold(0.0f64, f64::max);
        assert!(scale > 0.1 && worst <= 1e-3 * scale, "{kind:?}: worst {worst} of {scale}");
        let moved = largest_gap(&world, &World::new(start.clone(), settings));
        assert!(moved < 0.01, "{kind:?}: a cube moved {moved} m in one frame");
        // The single-dispatch solver: one workgroup per wall (an island of 420 contacts),
        // against the same float64 twin.
        if kind == BackendKind::WebGpu {
            let mut layout = lcp.gpu_layout(Mode::Blocks);
            layout.factors = Some(lcp.factors());
            let system = ContactSystem::upload(gpu.as_ref(), &layout).unwrap();
            assert_eq!(system.factors.as_ref().and_then(|f| f.groups.as_ref()).map(|g| g.count), Some(100), "one workgroup per wall");
            let dispatch = solve.on(ContactPath::Dispatch { workgroups: None });
            let x = solve_contacts(gpu.as_ref(), &system, &system.x0, dispatch, None).await.unwrap();
            let got = &system.read(gpu.as_ref(), &x).await.unwrap();
            let worst = exact
                .iter()
                .enumerate()
                .flat_map(|(i, e)| (0..3).map(move |r| (e[r] - f64::from(got[4 * i + r])).abs()))
                .fold(0.0f64, f64::max);
            assert!(worst <= 1e-3 * scale, "one dispatch: worst {worst} of {scale}");
        }
    }

    async fn islands_past_a_workgroup_solve_in_the_same_dispatch(kind) {
        // A wall of 240 cubes (one island of 1,700 contacts, past a workgroup's 1,024 contacts
        // and 170 bodies, as walls that fell onto each other make) beside the default wall:
        // both single-dispatch solvers, the accelerated one and the soft step, run them in one
        // dispatch, the big island's state in storage, against their float64 twins within the
        // bounds of the one-wall tests, and so does the default path, in passes on a software
        // adapter; WebGL2 has no compute and says so.
        let gpu = device(kind).await;
        let big = WallSpec { length: 20, height: 12, ..WallSpec::default() };
        let mut bodies = wall(&big);
        bodies.extend(wall(&WallSpec::default()).into_iter().map(|mut b| {
            b.position.z += 4.0;
            b
        }));
        let s = Settings { method: ContactMethod::Soft, sleeping: false, ..Settings::default() };
        let mut world = World::new(bodies, s);
        for _ in 0..2 {
            world.step_cpu().unwrap();
        }
        let lcp = world.begin_frame();
        let system = ContactSystem::upload(gpu.as_ref(), &lcp.factored_layout(lcp.factors())).unwrap();
        let islands = lcp.island_runs();
        assert!(islands.len() == 2 && islands.iter().any(|&n| n > 1024), "{islands:?}");
        let dispatch = ContactPath::Dispatch { workgroups: None };
        let step = -1.0 / lcp.lambda_max();
        let solve = ContactSolve::nesterov(step as f32, lcp.mu as f32, 60).on(dispatch);
        let before = gpu.counts().passes;
        let run = solve_contacts(gpu.as_ref(), &system, &system.x0, solve, None).await;
        if kind == BackendKind::WebGl2 {
            let e = run.unwrap_err().to_string();
            assert!(e.contains("compute shader") && e.contains("WebGPU"), "{e}");
            return;
        }
        let groups = system.factors.as_ref().and_then(|f| f.groups.as_ref()).unwrap();
        assert_eq!((groups.wide.0, groups.wide.1), (*islands.iter().max().unwrap(), 240));
        let accelerated = lcp.solve_nesterov(step, 60);
        let got = system.read(gpu.as_ref(), &run.unwrap()).await.unwrap();
        let numbers = soft_numbers(&s, 4, lcp.mu);
        let (velocity, position) = solve_soft_on(gpu.as_ref(), &system, numbers, dispatch).unwrap();
        assert!(gpu.counts().passes - before <= 3, "one dispatch each, and the soft step's copy");
        let soft = lcp.solve_soft(s.dt, s.gravity, 4, s.max_correction);
        let velocity = system.read(gpu.as_ref(), &velocity).await.unwrap();
        let position = system.read(gpu.as_ref(), &position).await.unwrap();
        // The default path takes that dispatch on a hardware adapter; a software one runs a
        // workgroup on one core, and the big island's passes are faster there.
        let before = gpu.counts().passes;
        let auto = ContactSolve::nesterov(step as f32, lcp.mu as f32, 60);
        let auto = solve_contacts(gpu.as_ref(), &system, &system.x0, auto, None).await.unwrap();
        let passes = gpu.counts().passes - before;
        let software = gpu.capabilities().software;
        assert!(if software { passes >= 120 } else { passes == 1 }, "software {software}: {passes} passes");
        let auto = system.read(gpu.as_ref(), &auto).await.unwrap();
        for (name, got, exact) in [
            ("accelerated", &got, &accelerated),
            ("accelerated, default path", &auto, &accelerated),
            ("soft step", &velocity, &soft.velocity),
            ("soft step's displacement", &position, &soft.position),
        ] {
            let scale = exact.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
            let got: Vec<f64> = got.iter().map(|&v| f64::from(v)).collect();
            let worst = largest_difference(&got, exact);
            assert!(scale > 0.0 && worst <= 1e-3 * scale, "{name}: worst {worst} of {scale}");
        }
    }

    async fn long_solves_run_in_chunks_and_can_be_cancelled(kind) {
        // A frame's solve by passes (the busy frame's block rows, and its factors on WebGL2,
        // where no single dispatch takes them) waits for the GPU and asks whether to go on after
        // 128 passes, then about every 50 ms: the chunks change nothing (the same passes, bit
        // for bit), and a "no" ends it there with `Cancelled`, so a long frame neither holds the
        // page nor runs to its end.
        let gpu = device(kind).await;
        let (lcp, layout) = busy_layout();
        let (step, mu) = ((-1.0 / lcp.lambda_max()) as f32, lcp.mu as f32);
        let method = ContactSolve::nesterov(step, mu, 300);
        let rows = ContactLayout { factors: None, ..layout.clone() };
        let mut systems = vec![ContactSystem::upload(gpu.as_ref(), &rows).unwrap()];
        if kind == BackendKind::WebGl2 {
            systems.push(ContactSystem::upload(gpu.as_ref(), &layout).unwrap());
        }
        let asked = std::cell::Cell::new(0);
        let go_on = || {
            asked.set(asked.get() + 1);
            true
        };
        for system in &systems {
            asked.set(0);
            let chunked = solve_contacts(gpu.as_ref(), system, &system.x0, method, Some(&go_on)).await.unwrap();
            let whole = solve_contacts(gpu.as_ref(), system, &system.x0, method, None).await;
            assert!(asked.get() >= 1, "{kind:?}: 300 passes never paused");
            let chunked = system.read(gpu.as_ref(), &chunked).await.unwrap();
            let whole = system.read(gpu.as_ref(), &whole.unwrap()).await.unwrap();
            assert!(chunked == whole, "{kind:?}: the chunks changed the impulses");
        }
        asked.set(0);
        let stop = || {
            asked.set(asked.get() + 1);
            false
        };
        let (system, jacobi) = (&systems[0], ContactSolve::jacobi(-0.1, 2000));
        let e = solve_contacts(gpu.as_ref(), system, &system.x0, jacobi, Some(&stop)).await.err().unwrap();
        assert!(matches!(e, Error::Cancelled) && asked.get() == 1, "{kind:?}: {e} after {} questions", asked.get());
        // Within the first chunk there is nothing to ask: the default frame (80) never pauses.
        let short = ContactSolve { iterations: 80, ..jacobi };
        let short = solve_contacts(gpu.as_ref(), system, &system.x0, short, Some(&stop)).await;
        assert!(short.is_ok() && asked.get() == 1);
    }
}
