//! The wall's 30 s standing test on the GPU, on both backends: 1800 frames at the default
//! solver settings with sleeping off. In a file of its own (a browser session of its own): in
//! `tests/wall.rs`'s session, a WebGPU test after it held the renderer past chromedriver's
//! 300 s limit on a loaded machine (three times in three sessions; each test passes alone).
#![cfg(target_arch = "wasm32")]

mod common;

use common::device;
use common::wall::now;
use texla::backend::BackendKind;
use texla::physics::{gpu_frame, wall, Settings, WallSpec, World};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

on_both_backends! {
    async fn default_solver_holds_the_wall_thirty_seconds_awake(kind) {
        // The standard, on the GPU at the default solver settings (the accelerated
        // solver, 80 iterations, blocks) with sleeping off, so that the solver holds the wall
        // by itself every frame: 30 s at rest, drift at most 0.1% of the edge (issue 34's
        // standard, the peers'), penetration at most 0.2%, every point slower than 1 mm/s
        // after 2 s, energy never above its start.
        let gpu = device(kind).await;
        let settings = Settings { sleeping: false, ..Settings::default() };
        let mut world = World::new(wall(&WallSpec::default()), settings);
        let start = world.bodies.clone();
        let energy = world.energy();
        let edge = WallSpec::default().edge;
        let (mut deepest, mut fastest, mut drift) = (0.0f64, 0.0f64, 0.0f64);
        for frame in 0..1800 {
            gpu_frame(gpu.as_ref(), &mut world, &now).await.unwrap();
            deepest = deepest.max(world.stats.penetration);
            for (b, s) in world.bodies.iter().zip(&start) {
                drift = drift.max(b.position.distance(s.position));
                if frame >= 120 {
                    fastest = fastest.max(b.fastest_point());
                }
            }
            let e = world.energy();
            assert!(e <= energy, "{kind:?} frame {frame}: energy {e} J above {energy} J");
            assert!(drift <= 0.001 * edge, "{kind:?} frame {frame}: a cube moved {drift} m");
        }
        let pct = |m: f64| 100.0 * m / edge;
        web_sys::console::log_1(
            &format!(
                "{kind:?}: drift {:.3}%, penetration {:.3}% of the edge, fastest {fastest:.1e} m/s",
                pct(drift),
                pct(deepest)
            )
            .into(),
        );
        assert!(deepest <= 0.002 * edge, "{kind:?}: penetration {deepest} m");
        assert!(fastest < 1e-3, "{kind:?}: a point moves at {fastest} m/s after 2 s");
    }
}
