//! Native tests of the kernels generated for `y = A x + b` (`crate::kernels::linear()`): the
//! plan's float64 model of the kernel against `A x + b` in the original order, for natural and
//! permuted expressions; the shader text against the program; the caps; and, with the `native`
//! feature, the complete WGSL module through naga's parser and validator.

use super::examples::*;
use super::*;
use crate::error::Error;
use crate::kernels::{MAX_BAKED_INSTRUCTIONS, MAX_BAKED_SIZE};
use crate::reference::Rng;

/// The cases of the browser tests, natural and permuted: (name, original, permuted).
fn cases() -> Vec<(String, LinearExpr, LinearExpr)> {
    let mut out = Vec::new();
    let mut both = |name: &str, e: LinearExpr, perm: Vec<usize>| {
        out.push((format!("{name}, natural"), e.clone(), e.clone()));
        let p = e.permute(&perm).unwrap();
        out.push((format!("{name}, permuted"), e, p));
    };
    both("RK 20", runge_kutta_cars(5), e_opt(&runge_kutta_cars(5)));
    both("2D S", poisson_2d_s(), PAPER_2D_PERMUTATION.to_vec());
    both("3D S", poisson_3d_s(), stride_permutation(40, 10));
    both("S*", wave_s_star(), stride_permutation(32, 8));
    for (k, m) in [13, 30, 64, 256].into_iter().enumerate() {
        let e = random_sparse(m, 2.0 / m as f64, k as u32 + 1, true).unwrap();
        let perm = e_opt(&e);
        both(&format!("random {m}"), e, perm);
    }
    out
}

/// An optimised order (few moves: the tests need a permutation, not the best one).
fn e_opt(e: &LinearExpr) -> Vec<usize> {
    e.optimize(7, 2000).1
}

#[test]
fn the_kernel_model_computes_a_x_plus_b_in_the_original_order() {
    let mut rng = Rng::new(3);
    for (name, original, e) in cases() {
        let plan = e.plan().unwrap();
        let x: Vec<f64> = (0..e.size()).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
        let want = original.apply(&x);
        let got = plan.evaluate(&e.instructions(), &x);
        for (r, w) in want.iter().enumerate() {
            assert!(
                (got[r] - w).abs() <= 1e-12 * (1.0 + w.abs()),
                "{name}: y[{r}] = {} against {w}",
                got[r]
            );
        }
        // Every instruction belongs to exactly one block row.
        let mut all: Vec<usize> = plan.rows.concat();
        all.sort_unstable();
        assert_eq!(all, (0..e.cost()).collect::<Vec<_>>(), "{name}");
    }
}

#[test]
fn the_shaders_hold_one_statement_per_instruction() {
    for (name, _, e) in cases() {
        let program = e.instructions();
        let kernel = e.kernel().unwrap();
        let count = |op: Op| program.instructions.iter().filter(|i| i.op == op).count();
        let (wgsl, glsl) = (kernel.wgsl_source(), kernel.glsl_source());
        for src in [&wgsl, &glsl] {
            assert!(
                !src.contains("{rows}") && !src.contains("{cases}"),
                "{name}"
            );
            for ins in &program.instructions {
                assert!(src.contains(&format!("    // {ins}\n")), "{name}: {ins}");
            }
            // No matrix is fetched: x is the only input.
            assert!(!src.contains("a_texel"), "{name}");
        }
        assert_eq!(wgsl.matches("fma(").count(), count(Op::Mad), "{name}");
        assert!(!glsl.contains("fma("), "{name}");
        let dots = |src: &str| src.matches("dot(").count();
        assert_eq!(dots(&wgsl), count(Op::Dp4), "{name}");
        assert_eq!(dots(&glsl), count(Op::Dp4), "{name}");
        let texels = e.size().div_ceil(4);
        assert!(wgsl.matches("        case ").count() <= texels, "{name}");
        assert_eq!(
            wgsl.matches("        case ").count(),
            glsl.matches("        case ").count()
        );
    }
    // A natural-order texel is read as it is, a permuted one gathered lane by lane.
    let e = poisson_2d_s();
    assert!(e.kernel().unwrap().wgsl.contains("let x0 = t0;"));
    let p = e.permute(&PAPER_2D_PERMUTATION).unwrap();
    let wgsl = p.kernel().unwrap().wgsl;
    // x'_0 = (x4, x7, x0, x3): texel 1 lanes x, w and texel 0 lanes x, w.
    assert!(
        wgsl.contains("let x0 = vec4<f32>(t1.x, t1.w, t0.x, t0.w);"),
        "{wgsl}"
    );
    // A banded matrix in natural order gathers per case (its texel and the two beside it); a
    // scattered order once for all cases, each texel of x fetched on one line.
    let s3 = poisson_3d_s();
    assert!(!s3.plan().unwrap().shares_gather());
    assert_eq!(
        s3.kernel().unwrap().wgsl.matches("x_texel(col, ").count(),
        28
    );
    assert!(s3
        .permute(&stride_permutation(40, 10))
        .unwrap()
        .plan()
        .unwrap()
        .shares_gather());
    let scattered = random_sparse(MAX_BAKED_SIZE, 0.01, 15, true).unwrap();
    let shuffled = scattered.permute(&stride_permutation(256, 7)).unwrap();
    for e in [&scattered, &shuffled] {
        assert!(e.plan().unwrap().shares_gather());
        let src = e.kernel().unwrap().wgsl;
        assert!(src.matches("x_texel(col, ").count() <= 64, "{src}");
        assert!(
            src.find("    let t0 = x_texel(col, 0);").unwrap()
                < src.find("switch texel.y").unwrap()
        );
    }
    // The coefficients are literals: -1/4 and -1/3 as float32.
    assert!(
        wgsl.contains("-0.25") && wgsl.contains("-0.33333334"),
        "{wgsl}"
    );
}

#[test]
fn kernels_past_the_caps_are_clear_errors() {
    let message = |r: crate::error::Result<crate::kernels::Kernel>| match r {
        Err(Error::Argument(msg)) => msg,
        other => panic!("expected an Argument error, got {other:?}"),
    };
    let m = MAX_BAKED_SIZE + 4;
    let identity: Vec<f64> = (0..m * m)
        .map(|k| if k % (m + 1) == 0 { 1.0 } else { 0.0 })
        .collect();
    let big = LinearExpr::from_dense(&identity, m, None).unwrap();
    let msg = message(big.kernel());
    assert!(msg.contains("1 to 256, this one is 260"), "{msg}");
    // A dense 256 x 256 expression: 64 x 64 blocks of 4 peels each.
    let dense = LinearExpr::from_dense(&vec![0.5; 256 * 256], 256, None).unwrap();
    assert_eq!(dense.cost(), 16384);
    let msg = message(dense.kernel());
    assert!(
        msg.contains(&format!(
            "16384 four-wide instructions, more than the {MAX_BAKED_INSTRUCTIONS}"
        )),
        "{msg}"
    );
    let huge = LinearExpr::from_dense(&[1e39, 0.0, 0.0, 1.0], 2, None).unwrap();
    let msg = message(huge.kernel());
    assert!(msg.contains("beyond float32's range"), "{msg}");
    // The largest accepted size works.
    let edge = random_sparse(MAX_BAKED_SIZE, 0.01, 9, true).unwrap();
    assert!(edge.cost() <= MAX_BAKED_INSTRUCTIONS);
    edge.kernel().unwrap();
}

/// The complete WGSL module (prelude, input accessors, body, entry point) parses and validates.
#[cfg(feature = "native")]
#[test]
fn naga_validates_the_generated_wgsl() {
    let mut exprs: Vec<(String, LinearExpr)> =
        cases().into_iter().map(|(n, _, e)| (n, e)).collect();
    exprs.push((
        "random 256".into(),
        random_sparse(MAX_BAKED_SIZE, 0.01, 9, true).unwrap(),
    ));
    for (name, e) in exprs {
        let src = e.kernel().unwrap().wgsl_source();
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|err| panic!("{name}: {}\n{src}", err.emit_to_string(&src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|err| panic!("{name}: {err:?}\n{src}"));
    }
}
