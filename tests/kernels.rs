//! Every kernel texla can build, with representative parameters: products, element-wise
//! expressions and functions, reductions, contact and LCP solvers, float-float, the SIMD-optimization paper's
//! `y = A x + b` and stencil passes; and the shaders the backends draw or copy with (scene,
//! transfer). Each complete source, WGSL and GLSL, must have every `{placeholder}` filled
//! (`kernels::Template` refuses one left unfilled as the kernel is built; this checks the
//! assembled module too), and with the `native` feature naga (the WGSL front end and validator
//! wgpu uses) must accept every WGSL module, so a typo in an unrolled or generated line fails
//! here, not at pipeline creation. Native: `cargo test --features native --test kernels`.
#![cfg(not(target_arch = "wasm32"))]

use texla::kernels::{
    self, placeholders, Expr, Func, Func2, Kernel, Reduction, FAST_TARGETS, TILED_CHUNKS,
};
use texla::simd_expr::examples::{
    poisson_2d_s, poisson_3d_s, random_sparse, runge_kutta_cars, wave_s_star, PAPER_2D_PERMUTATION,
};
use texla::simd_expr::stride_permutation;
use texla::stencil::{Ebj, PoissonGrid, Wave};

/// Every kernel, each constructor with the parameters texla uses or their extremes.
fn every_kernel() -> Vec<Kernel> {
    let mut all = vec![
        // Products.
        kernels::MATMUL,
        kernels::MATMUL_PASS,
        kernels::TR_MUL,
        kernels::MUL_TR,
        kernels::TRANSPOSE,
        kernels::MATVEC_PARTIAL,
        kernels::SUM_COLS,
        kernels::matvec_tiled(1),
        kernels::matvec_tiled(2048),
        kernels::SUM_SLICES,
        kernels::LAPLACIAN,
        kernels::LAPLACIAN_TILE,
        kernels::matmul_registers(4, 32),
        kernels::matmul_registers(4, 8),
        kernels::matmul_registers(2, 16),
        kernels::matmul_registers(1, 1),
        // Element-wise.
        kernels::IDENTITY,
        kernels::DIAGONAL,
        // Contact and LCP solvers.
        kernels::contact_jacobi(),
        kernels::contact_nesterov(),
        kernels::contact_velocities(),
        kernels::contact_nesterov_factored(),
        kernels::contact_nesterov_group(256, false, (0, 0)),
        kernels::contact_nesterov_group(256, true, (0, 0)),
        kernels::contact_nesterov_group(32, true, (0, 0)),
        kernels::contact_nesterov_group(32, false, (0, 0)),
        kernels::contact_nesterov_group(256, false, (2000, 300)),
        kernels::contact_soft_group(256, (4, 2), 3.0, (0, 0)),
        kernels::contact_soft_group(32, (64, 1), 1e-3, (0, 0)),
        kernels::contact_soft_group(32, (4, 2), 3.0, (2000, 300)),
        kernels::lcp_jacobi(512, 4, 7, 100, 25, true),
        kernels::lcp_jacobi(256, 1, 0, 64, 64, false),
        kernels::lcp_jacobi(2048, 2, kernels::LCP_MAX_REGISTERS, 300, 1, true),
        // Float-float.
        kernels::ff_linear(),
        kernels::ff_matmul(),
        kernels::ff_matvec_partial(),
        kernels::ff_sum_cols(),
        kernels::ff_combine(),
        kernels::ff_reduce(true),
        kernels::ff_reduce(false),
    ];
    all.extend((2..=FAST_TARGETS).map(kernels::matmul_fast));
    for bk in TILED_CHUNKS {
        all.extend(
            kernels::tiled_widths(bk)
                .iter()
                .map(|&w| kernels::matmul_tiled(bk, w)),
        );
    }
    all.extend([16, 32, 64].map(kernels::matmul_tensor));
    for r in [Reduction::Sum, Reduction::Dot, Reduction::MaxAbs] {
        all.extend([r.pass(), r.last(), r.compute_pass()]);
    }
    // Expressions: every function, and expressions with inputs, numbers and operators.
    let a = || Expr::parse("a").unwrap();
    let b = || Expr::parse("b").unwrap();
    all.extend(Func::ALL.map(|f| kernels::map(&Expr::call(f, a()))));
    all.extend(Func2::ALL.map(|f| kernels::map(&Expr::call2(f, a(), b()))));
    let parse = |text: &str| Expr::parse(text).unwrap();
    all.push(kernels::map(&parse(
        "a * cos(b) / sqrt(c) + 2.5 ^ d - e * f",
    )));
    all.push(kernels::map(&parse("1.5")));
    all.push(kernels::map2(
        &parse("a + 2 * b"),
        &parse("max(a, b) - 0.5"),
    ));
    // The SIMD-optimization paper's y = A x + b, natural and permuted, and the stencil passes.
    for (e, perm) in [
        (runge_kutta_cars(5), (0..20).collect::<Vec<_>>()),
        (poisson_2d_s(), PAPER_2D_PERMUTATION.to_vec()),
        (poisson_3d_s(), stride_permutation(40, 10)),
        (wave_s_star(), stride_permutation(32, 8)),
        (
            random_sparse(37, 0.3, 7, true).unwrap(),
            (0..37).rev().collect(),
        ),
    ] {
        all.push(e.kernel().unwrap());
        all.push(e.permute(&perm).unwrap().kernel().unwrap());
    }
    let (g3, g2) = (
        PoissonGrid::new(40, 8, 8).unwrap(),
        PoissonGrid::new(8, 8, 1).unwrap(),
    );
    let ebj = [
        Ebj::natural(g3),
        Ebj::optimized(g3),
        Ebj::with_order(g2, &PAPER_2D_PERMUTATION).unwrap(),
    ];
    for e in ebj {
        all.extend(e.passes().unwrap().into_iter().map(|p| p.kernel));
    }
    for ordering in ["natural", "optimized"] {
        let w = Wave::new(512, 512, 0.25, ordering).unwrap();
        all.extend(w.passes().unwrap().into_iter().map(|p| p.kernel));
    }
    all
}

/// The shaders the backends use as they are, not as kernels: (file, source).
const WHOLE_SHADERS: [(&str, &str); 5] = [
    (
        "scene/scene.wgsl",
        include_str!("../shaders/scene/scene.wgsl"),
    ),
    (
        "scene/scene.glsl",
        include_str!("../shaders/scene/scene.glsl"),
    ),
    (
        "transfer/pack.wgsl",
        include_str!("../shaders/transfer/pack.wgsl"),
    ),
    (
        "transfer/pack_f16.wgsl",
        include_str!("../shaders/transfer/pack_f16.wgsl"),
    ),
    (
        "transfer/unpack.wgsl",
        include_str!("../shaders/transfer/unpack.wgsl"),
    ),
];

#[test]
fn every_kernel_has_every_placeholder_filled() {
    let all = every_kernel();
    assert!(all.len() > 100, "{} kernels", all.len());
    for k in &all {
        let mut sources = vec![("WGSL", k.wgsl_source())];
        if k.compute.is_none() {
            sources.push(("GLSL", k.glsl_source()));
        }
        for (lang, src) in sources {
            let left: Vec<&str> = placeholders(&src).collect();
            assert!(
                left.is_empty(),
                "{} ({lang}) leaves {left:?}:\n{src}",
                k.name
            );
        }
    }
    for (file, src) in WHOLE_SHADERS {
        let left: Vec<&str> = placeholders(src).collect();
        assert!(left.is_empty(), "shaders/{file} leaves {left:?}");
    }
}

#[cfg(feature = "native")]
#[test]
fn naga_validates_every_wgsl_module() {
    let validate = |name: &str, src: &str| {
        let module = naga::front::wgsl::parse_str(src)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    };
    for k in every_kernel() {
        validate(&k.name, &k.wgsl_source());
    }
    for (file, src) in WHOLE_SHADERS
        .into_iter()
        .filter(|(f, _)| f.ends_with(".wgsl"))
    {
        validate(file, src);
    }
}
