//! Browser tests of the single-dispatch projected-Jacobi solver (the WebGPU compute path), on
//! both backends: against the same iterations in float64 (relative to max |x|, 1e-5) and the
//! known answer on WebGPU, a clear `Unsupported` error on WebGL2. In a file of its own because
//! the float64 reference at the wall's size (n = 400, 800 iterations) takes seconds in a debug
//! build, and each test file gets 20 s.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{device, error, error_to, keep_going, upload};
use texla::backend::BackendKind;
use texla::problems;
use texla::reference;
use texla::solver::{lcp_jacobi, lcp_jacobi_blocks, lcp_jacobi_compute, LcpOptions};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

on_both_backends! {
    async fn single_dispatch_lcp_solver_matches_float64_on_webgpu(kind) {
        let gpu = device(kind).await;
        let p = problems::lcp(90, 4);
        let (a, b) = upload(gpu.as_ref(), &p);
        let options = LcpOptions { omega: -0.8, iterations: 300, residual: true, progress_every: 50 };
        let result = lcp_jacobi_compute(gpu.as_ref(), &a, &b, None, options, None, &mut keep_going).await;
        if kind == BackendKind::WebGl2 {
            let err = result.unwrap_err();
            assert!(err.to_string().contains("needs WebGPU"), "{err}");
            return;
        }
        let s = result.unwrap();
        // The same iterations in float64, and the known answer they approach.
        let exact = reference::lcp_jacobi(&p.a, &p.b, p.n, -0.8, 300);
        let e = error_to(gpu.as_ref(), &s.x, &exact).await;
        assert!(e <= 1e-5, "against float64 Jacobi: {e:e}");
        assert!(error(gpu.as_ref(), &s.x, &p).await <= 1e-5);
        assert!(s.residuals[0] <= 1e-5, "complementarity {:e}", s.residuals[0]);
        // A few dispatches for all 300 iterations (64 first, then about 100 ms each; + the
        // diagonal check's 2 passes and the residual's), against 3 passes an iteration.
        let fragment = lcp_jacobi(gpu.as_ref(), &a, &b, None, options, &mut keep_going).await.unwrap();
        assert!(s.counts.passes < 20, "{} passes", s.counts.passes);
        assert!(fragment.counts.passes >= 900);
        // Few iterations, where x is still far from the answer, and a warm start.
        let few = lcp_jacobi_compute(gpu.as_ref(), &a, &b, None, LcpOptions { iterations: 3, ..options }, None, &mut keep_going).await.unwrap();
        assert!(error_to(gpu.as_ref(), &few.x, &reference::lcp_jacobi(&p.a, &p.b, p.n, -0.8, 3)).await <= 1e-5);
        let exact: Vec<f32> = p.x.iter().map(|v| *v as f32).collect();
        let x0 = gpu.upload(&exact, p.n, 1).unwrap();
        let warm = lcp_jacobi_compute(gpu.as_ref(), &a, &b, Some(&x0), LcpOptions { iterations: 1, ..options }, Some(1), &mut keep_going).await.unwrap();
        assert!(warm.residuals[0] <= 1e-5, "{:e}", warm.residuals[0]);
        // (Several workgroups, which wait for each other, are not tried here: SwiftShader runs
        // them side by side only sometimes, and giving up takes longer than a test may. The
        // native benchmark checks 13 to 100 of them on a GPU against float64.)
        // The wall's size: n = 400, 2n iterations.
        let p = problems::lcp(400, 2);
        let (a, b) = upload(gpu.as_ref(), &p);
        let s = lcp_jacobi_compute(gpu.as_ref(), &a, &b, None, LcpOptions { iterations: 800, ..options }, None, &mut keep_going).await.unwrap();
        let e = error_to(gpu.as_ref(), &s.x, &reference::lcp_jacobi(&p.a, &p.b, p.n, -0.8, 800)).await;
        assert!(e <= 1e-5, "n = 400: {e:e}");
        // Progress between the dispatches, and a cancel at the first chance: after 64.
        let mut heard = Vec::new();
        let err = lcp_jacobi_compute(gpu.as_ref(), &a, &b, None, LcpOptions { iterations: 800, ..options }, None, &mut |p| {
            heard.push((p.iteration, p.of));
            false
        }).await.unwrap_err();
        assert!(matches!(err, texla::error::Error::Cancelled), "{err}");
        assert_eq!(heard, [(64, 800)]);
        // Failures: bad omega, a zero diagonal, shapes.
        let err = lcp_jacobi_compute(gpu.as_ref(), &a, &b, None, LcpOptions { omega: 0.5, ..options }, None, &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("omega must be negative"), "{err}");
        let zero = gpu.upload(&[0.0, 1.0, 1.0, 2.0], 2, 2).unwrap();
        let two = gpu.upload(&[1.0, 1.0], 2, 1).unwrap();
        let err = lcp_jacobi_compute(gpu.as_ref(), &zero, &two, None, options, None, &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("0 on its diagonal at row 0"), "{err}");
        let err = lcp_jacobi_compute(gpu.as_ref(), &a, &two, None, options, None, &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("b must be a 400x1 vector"), "{err}");
        let err = lcp_jacobi_blocks(gpu.as_ref(), (&a, &b, &b), None, (-0.8, 10), (Some(0), None)).unwrap_err();
        assert!(err.to_string().contains("workgroups must be at least 1"), "{err}");
    }
}
