//! Browser tests of the iterative solvers, each on both backends against known float64
//! solutions. Tolerances are stated per test: relative to max |x*|, sized for float32 and the
//! conditioning of each problem.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{device, error, keep_going, upload};
use texla::backend::BackendKind;
use texla::problems;
use texla::solver::{cg, cg_poisson_2d, jacobi, lcp_jacobi, CgOptions, JacobiOptions, LcpOptions};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

on_both_backends! {
    async fn the_stencil_is_the_poisson_matrix_and_cg_solves_40401_unknowns_with_it(kind) {
        let gpu = device(kind).await;
        // The 5-point Laplacian of a 13 x 10 grid against float64: three float32 roundings of
        // terms of size <= 1 (4x is exact).
        let mut rng = texla::reference::Rng::new(9);
        let v = rng.matrix(130, -1.0, 1.0);
        let gv = gpu.upload(&v, 13, 10).unwrap();
        let got = gpu.read(&gpu.laplacian(&gv).unwrap()).await.unwrap();
        for (i, g) in got.iter().enumerate() {
            let (r, c) = (i / 10, i % 10);
            let at = |r: usize, c: usize| f64::from(v[r * 10 + c]);
            let mut want = 4.0 * at(r, c);
            if c > 0 { want -= at(r, c - 1) }
            if c < 9 { want -= at(r, c + 1) }
            if r > 0 { want -= at(r - 1, c) }
            if r < 12 { want -= at(r + 1, c) }
            assert!((f64::from(*g) - want).abs() <= 8.0 * 2f64.powi(-24) * 8.0, "({r}, {c}): {g} against {want}");
        }
        // A 201 x 201 grid: 40,401 unknowns, whose dense matrix would take 6.5 GB.
        let m = 201;
        let p = problems::poisson_2d_grid(m);
        let b = gpu.upload(&p.b, m, m).unwrap();
        let options = CgOptions { tol: 1e-4, max_iter: 3000, fused: true };
        let s = cg_poisson_2d(gpu.as_ref(), &b, None, options, &mut keep_going).await.unwrap();
        assert!(s.converged, "{} iterations, residual {:?}", s.iterations, s.residuals.last());
        let e = error(gpu.as_ref(), &s.x, &p).await;
        assert!(e <= 1e-2, "error {e:e} after {} iterations", s.iterations);
    }

    async fn cg_solves_poisson_and_random_spd_systems(kind) {
        let gpu = device(kind).await;
        // (problem, allowed error): 1D Poisson has condition ~ 4n^2/pi^2, so float32 loses more.
        for (p, allowed) in [
            (problems::poisson_1d(64), 2e-3),
            (problems::poisson_2d(12), 1e-4),
            (problems::random_spd(1000, 5), 1e-4),
        ] {
            let (a, b) = upload(gpu.as_ref(), &p);
            let options = CgOptions { tol: 1e-5, max_iter: 2 * p.n, fused: false };
            let s = cg(gpu.as_ref(), &a, &b, None, options, &mut keep_going).await.unwrap();
            assert!(s.converged, "n = {}: {:?}", p.n, s.residuals.last());
            assert_eq!(s.residuals.len(), s.iterations + 1);
            let e = error(gpu.as_ref(), &s.x, &p).await;
            assert!(e <= allowed, "n = {}: error {e:e} after {} iterations", p.n, s.iterations);
            assert_eq!(s.counts.readbacks as usize, 1 + 2 * s.iterations + 1, "only scalars: |b|, then p.Ap and r.r per iteration, then r.r");
        }
    }

    async fn fused_cg_takes_fewer_passes_and_agrees(kind) {
        let gpu = device(kind).await;
        let p = problems::poisson_2d(10);
        let (a, b) = upload(gpu.as_ref(), &p);
        let run = |fused| {
            let (gpu, a, b) = (gpu.as_ref(), &a, &b);
            async move { cg(gpu, a, b, None, CgOptions { tol: 1e-5, max_iter: 500, fused }, &mut keep_going).await.unwrap() }
        };
        let plain = run(false).await;
        let fused = run(true).await;
        assert_eq!(plain.iterations, fused.iterations);
        assert_eq!(plain.counts.passes - fused.counts.passes, plain.iterations as u64, "one pass saved per iteration");
        assert_eq!(plain.counts.readbacks, fused.counts.readbacks);
        let (x1, x2) = (gpu.read(&plain.x).await.unwrap(), gpu.read(&fused.x).await.unwrap());
        assert!(x1.iter().zip(&x2).all(|(u, v)| (u - v).abs() <= 1e-5 * u.abs().max(1.0)));
    }

    async fn cg_warm_start_and_failures(kind) {
        let gpu = device(kind).await;
        let p = problems::poisson_1d(40);
        let (a, b) = upload(gpu.as_ref(), &p);
        let exact: Vec<f32> = p.x.iter().map(|v| *v as f32).collect();
        let x0 = gpu.upload(&exact, p.n, 1).unwrap();
        let s = cg(gpu.as_ref(), &a, &b, Some(&x0), CgOptions { tol: 1e-5, max_iter: 100, fused: false }, &mut keep_going).await.unwrap();
        assert!(s.converged && s.iterations <= 1, "warm start from x* needs at most one step, took {}", s.iterations);
        // Not positive definite.
        let m = gpu.upload(&[1.0, 0.0, 0.0, -1.0], 2, 2).unwrap();
        let v = gpu.upload(&[0.0, 1.0], 2, 1).unwrap();
        let err = cg(gpu.as_ref(), &m, &v, None, CgOptions::default(), &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("not positive definite"), "{err}");
        // NaN in b is divergence, not a silent number.
        let nan = gpu.upload(&[1.0, f32::NAN], 2, 1).unwrap();
        let eye = gpu.identity(2, 2).unwrap();
        let err = cg(gpu.as_ref(), &eye, &nan, None, CgOptions::default(), &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("diverged"), "{err}");
        // Shapes and cancellation.
        let err = cg(gpu.as_ref(), &a, &v, None, CgOptions::default(), &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("b must be a 40x1 vector"), "{err}");
        let rect = gpu.fill(3, 2, 1.0).unwrap();
        let err = cg(gpu.as_ref(), &rect, &v, None, CgOptions::default(), &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("A must be square"), "{err}");
        let err = cg(gpu.as_ref(), &a, &b, None, CgOptions::default(), &mut |pr| pr.iteration < 3).await.unwrap_err();
        assert_eq!(err, texla::error::Error::Cancelled);
    }

    async fn jacobi_converges_for_every_alpha_of_seed_003(kind) {
        let gpu = device(kind).await;
        for (i, alpha) in [1.1, 1.2, 1.4].into_iter().enumerate() {
            let p = problems::jacobi_system(100, alpha, 10 + i as u32);
            let (a, b) = upload(gpu.as_ref(), &p);
            let s = jacobi(gpu.as_ref(), &a, &b, JacobiOptions { tol: 1e-5, max_iter: 2000, check_every: 1 }, &mut keep_going).await.unwrap();
            assert!(s.converged, "alpha {alpha}: {:?}", s.residuals.last());
            let e = error(gpu.as_ref(), &s.x, &p).await;
            assert!(e <= 1e-4, "alpha {alpha}: error {e:e}");
            // Slower convergence for weaker dominance.
            if alpha == 1.1 {
                assert!(s.iterations > 20);
            }
        }
    }

    async fn jacobi_failures_are_reported(kind) {
        let gpu = device(kind).await;
        let b = gpu.upload(&[1.0, 1.0], 2, 1).unwrap();
        let zero = gpu.upload(&[0.0, 1.0, 1.0, 2.0], 2, 2).unwrap();
        let err = jacobi(gpu.as_ref(), &zero, &b, JacobiOptions::default(), &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("0 on its diagonal at row 0"), "{err}");
        let weak = gpu.upload(&[1.0, 3.0, 3.0, 1.0], 2, 2).unwrap();
        let err = jacobi(gpu.as_ref(), &weak, &b, JacobiOptions::default(), &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("diverged"), "{err}");
    }

    async fn projected_jacobi_solves_lcps_with_active_and_inactive_components(kind) {
        let gpu = device(kind).await;
        let p = problems::lcp(90, 4);
        let (a, b) = upload(gpu.as_ref(), &p);
        let options = LcpOptions { omega: -0.8, iterations: 300, residual: true, progress_every: 50 };
        let s = lcp_jacobi(gpu.as_ref(), &a, &b, None, options, &mut keep_going).await.unwrap();
        let e = error(gpu.as_ref(), &s.x, &p).await;
        assert!(e <= 1e-5, "error {e:e}");
        assert!(s.residuals[0] <= 1e-5, "complementarity {:e}", s.residuals[0]);
        // No read-back inside the loop: the diagonal check, then the residual at the end.
        assert_eq!(s.counts.readbacks, 2);
        let shorter = lcp_jacobi(gpu.as_ref(), &a, &b, None, LcpOptions { iterations: 100, ..options }, &mut keep_going).await.unwrap();
        assert_eq!(s.counts.passes - shorter.counts.passes, 200 * 3, "3 passes per iteration: A x (2), then max(x + (b + w) .* d, 0)");
        // Warm start from the answer: already complementary after one iteration.
        let exact: Vec<f32> = p.x.iter().map(|v| *v as f32).collect();
        let x0 = gpu.upload(&exact, p.n, 1).unwrap();
        let warm = lcp_jacobi(gpu.as_ref(), &a, &b, Some(&x0), LcpOptions { iterations: 1, ..options }, &mut keep_going).await.unwrap();
        assert!(warm.residuals[0] <= 1e-5, "{:e}", warm.residuals[0]);
        // The seed's omega = -0.1 converges too, more slowly: residual still falls.
        let slow = lcp_jacobi(gpu.as_ref(), &a, &b, None, LcpOptions { omega: -0.1, iterations: 2 * p.n, ..options }, &mut keep_going).await.unwrap();
        assert!(slow.residuals[0] < s.residuals[0].max(1e-6) * 1e6 && slow.residuals[0] < 0.1);
        let err = lcp_jacobi(gpu.as_ref(), &a, &b, None, LcpOptions { omega: 0.5, ..options }, &mut keep_going).await.unwrap_err();
        assert!(err.to_string().contains("omega must be negative"), "{err}");
        let err = lcp_jacobi(gpu.as_ref(), &a, &b, None, options, &mut |pr| pr.iteration < 100).await.unwrap_err();
        assert_eq!(err, texla::error::Error::Cancelled);
    }
}
