//! Native tests of the SIMD-optimization paper's stencil solvers (`poisson.rs`, `poisson_gpu.rs`, `wave.rs`) and of
//! the shader counts (`crate::simd_expr::measures`): the paper's instruction counts per elementary product,
//! the float64 EBJ and Gauss-Seidel against the paper's claims, packing, the errors, and with
//! the `native` feature naga's view of the generated kernels.

use super::*;
use crate::error::Error;
use crate::simd_expr::examples::PAPER_2D_PERMUTATION;
use crate::simd_expr::measures::source_counts;

fn grid(nx: usize, ny: usize, nz: usize) -> PoissonGrid {
    PoissonGrid::new(nx, ny, nz).unwrap()
}

#[test]
fn ebj_costs_are_the_papers() {
    let g3 = grid(40, 4, 4);
    assert_eq!(Ebj::natural(g3).cost(), (38, 78));
    let o = Ebj::optimized(g3);
    assert_eq!((o.cost(), o.name.as_str()), ((20, 60), "stride 10"));
    let g2 = grid(8, 8, 1);
    assert_eq!(Ebj::natural(g2).cost(), (6, 10));
    assert_eq!(Ebj::optimized(g2).cost(), (4, 8));
    let paper = Ebj::with_order(g2, &PAPER_2D_PERMUTATION).unwrap();
    assert_eq!(paper.cost(), (4, 8));
    // Two programs in 2D (the paper's x~ and x^), ten in 3D.
    assert_eq!(paper.passes().unwrap().len(), 2);
    assert_eq!(o.passes().unwrap().len(), 10);
}

#[test]
fn wave_costs_are_the_papers() {
    assert_eq!(
        Wave::new(512, 512, 0.25, "natural").unwrap().cost(),
        (38, 56)
    );
    assert_eq!(
        Wave::new(512, 512, 0.25, "optimized").unwrap().cost(),
        (24, 42)
    );
    assert_eq!(
        Wave::new(512, 512, 0.25, "optimized")
            .unwrap()
            .passes()
            .unwrap()
            .len(),
        8
    );
}

/// A x = b is what the sweeps solve: the residual falls, GS and EBJ alike, and the solution
/// satisfies the matrix (checked against a direct evaluation at one cell).
#[test]
fn ebj_and_gauss_seidel_solve_the_grid() {
    for g in [grid(8, 8, 1), grid(12, 6, 5)] {
        let b = g.rhs(3);
        let tols = [1e-6];
        let gs = iterations_to(&g, &b, &tols, 5000, |x| g.gauss_seidel(x, &b));
        let nat = Ebj::natural(g).iterations_to(&b, &tols, 5000);
        let opt = Ebj::optimized(g).iterations_to(&b, &tols, 5000);
        assert!(gs[0].is_some() && nat[0].is_some() && opt[0].is_some());
        // The paper's claims: Gauss-Seidel needs fewer iterations than EBJ, the optimized
        // order fewer than the natural one.
        assert!(gs[0] < opt[0], "{gs:?} {opt:?}");
        assert!(opt[0] < nat[0], "{opt:?} {nat:?}");
    }
}

#[test]
fn ebj_claims_hold_on_a_small_3d_grid_with_the_papers_line() {
    let g = grid(40, 10, 10);
    let b = g.rhs(1);
    let tols = [1e-3, 1e-4];
    let gs = iterations_to(&g, &b, &tols, 3000, |x| g.gauss_seidel(x, &b));
    let nat = Ebj::natural(g).iterations_to(&b, &tols, 3000);
    let opt = Ebj::optimized(g).iterations_to(&b, &tols, 3000);
    for t in 0..2 {
        assert!(gs[t].unwrap() < opt[t].unwrap() && opt[t].unwrap() < nat[t].unwrap());
    }
}

#[test]
fn slabs_and_wave_textures_pack_and_unpack() {
    let g = grid(12, 3, 2);
    let e = Ebj::optimized(g);
    let v: Vec<f64> = (0..g.len()).map(|i| i as f64).collect();
    assert_eq!(e.unpack(&e.pack(&v, 1.0)), v);
    // Slab 0 of line (0, 0) holds the cells of positions 0..4, lane by lane.
    let packed = e.pack(&v, 1.0);
    assert_eq!(packed[0][0], e.perm[0] as f32);
    assert_eq!(packed[0][2], e.perm[1] as f32); // row 1 (lane 1), column 0 of 2
    let w = Wave::new(64, 3, 0.25, "optimized").unwrap();
    let h: Vec<f64> = (0..64 * 3).map(|i| i as f64).collect();
    let back: Vec<f64> = w.unpack(&w.pack(&h)).into_iter().map(f64::from).collect();
    assert_eq!(back, h);
}

/// The wave's float64 step conserves a symmetric bump's symmetry and is stable at λ² = 1/4.
#[test]
fn wave_steps_stay_bounded() {
    let w = Wave::new(64, 64, 0.25, "natural").unwrap();
    let mut prev = w.stone(31.5, 31.5, 1.0, 4.0);
    let mut cur = prev.clone();
    for _ in 0..200 {
        w.step(&mut prev, &mut cur);
    }
    let max = cur.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(max < 2.0 && max > 1e-4, "{max}");
    assert!((cur[10 + 64 * 20] - cur[53 + 64 * 20]).abs() < 1e-12);
}

#[test]
fn bad_grids_orders_and_waves_are_errors() {
    let arg = |r: Result<_, Error>| matches!(r, Err(Error::Argument(_)));
    assert!(arg(PoissonGrid::new(10, 8, 8).map(|_| ())));
    assert!(arg(PoissonGrid::new(0, 8, 8).map(|_| ())));
    assert!(arg(PoissonGrid::new(MAX_LINE + 4, 8, 8).map(|_| ())));
    assert!(arg(PoissonGrid::new(8, 1, 1).map(|_| ())));
    assert!(arg(PoissonGrid::new(256, 4096, 4096).map(|_| ())));
    let g = grid(8, 8, 1);
    assert!(arg(
        Ebj::with_order(g, &[0, 1, 2, 3, 4, 5, 6, 6]).map(|_| ())
    ));
    assert!(arg(Ebj::with_order(g, &[0, 1, 2]).map(|_| ())));
    // A scattered order of a long line: a slab's block row reads too many slabs for one pass.
    let g = grid(64, 4, 4);
    let mut rng = crate::reference::Rng::new(5);
    let mut scattered: Vec<usize> = (0..64).collect();
    for k in (1..64).rev() {
        scattered.swap(k, ((k + 1) as f64 * rng.next_f64()) as usize);
    }
    let e = Ebj::with_order(g, &scattered).unwrap();
    assert!(arg(e.passes().map(|_| ())));
    assert!(arg(Wave::new(500, 512, 0.25, "natural").map(|_| ())));
    assert!(arg(Wave::new(512, 1, 0.25, "natural").map(|_| ())));
    assert!(arg(Wave::new(512, 512, 0.75, "natural").map(|_| ())));
    assert!(arg(Wave::new(512, 512, f64::NAN, "natural").map(|_| ())));
    assert!(arg(Wave::new(512, 512, 0.25, "fast").map(|_| ())));
}

/// The text counts of the stencil kernels: one MAD per peel and neighbour, one fetch per slab
/// read, and the same in both languages.
#[test]
fn source_counts_of_the_stencils() {
    let opt = Ebj::optimized(grid(40, 8, 8));
    for pass in opt.passes().unwrap() {
        let w = source_counts(&pass.kernel.wgsl);
        let g = source_counts(&pass.kernel.glsl);
        assert_eq!(w, g, "{}", pass.kernel.wgsl);
        // The other slabs read at the texel (S has a zero diagonal), four neighbours (the
        // slab itself), b.
        assert_eq!(
            w.fetches,
            pass.slabs.len() - 1 + 4 + 1,
            "{}",
            pass.kernel.wgsl
        );
    }
    let total: usize = (opt.passes().unwrap().iter())
        .map(|p| source_counts(&p.kernel.wgsl).ops())
        .sum();
    // 20 instructions of S, 4 T-MADs and one add of b per slab.
    assert_eq!(total, 20 + 10 * 5);
}

#[cfg(feature = "native")]
#[test]
fn naga_validates_and_counts_the_stencils() {
    use crate::simd_expr::measures::naga_counts;
    let mut kernels: Vec<crate::kernels::Kernel> = Vec::new();
    for e in [Ebj::natural(grid(40, 8, 8)), Ebj::optimized(grid(40, 8, 8))] {
        kernels.extend(e.passes().unwrap().into_iter().map(|p| p.kernel));
    }
    for o in ["natural", "optimized"] {
        let w = Wave::new(512, 512, 0.25, o).unwrap();
        kernels.extend(w.passes().unwrap().into_iter().map(|p| p.kernel));
    }
    // And gpu.linear's kernels of the examples, natural and in the paper's or a stride order.
    use crate::simd_expr::examples::*;
    use crate::simd_expr::stride_permutation;
    for (e, perm) in [
        (runge_kutta_cars(5), (0..20).collect::<Vec<_>>()),
        (poisson_2d_s(), PAPER_2D_PERMUTATION.to_vec()),
        (poisson_3d_s(), stride_permutation(40, 10)),
        (wave_s_star(), stride_permutation(32, 8)),
    ] {
        kernels.push(e.kernel().unwrap());
        kernels.push(e.permute(&perm).unwrap().kernel().unwrap());
    }
    for k in kernels {
        let src = k.wgsl_source();
        let n = naga_counts(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let s = source_counts(&k.wgsl);
        assert_eq!(n.fetches, s.fetches, "{src}");
        assert_eq!(n.ops(), s.ops(), "{n:?} {s:?}\n{src}");
    }
}
