//! Tests of kernels' sources: the accessors, the unrolled lines, the shape uniforms, and naga's
//! validation of the compute kernels.

use super::*;
use crate::layout::Layout;

#[test]
fn sources_have_one_accessor_block_per_input() {
    let wgsl = MATMUL.wgsl_source();
    assert!(wgsl.contains("@group(0) @binding(1) var a_tex: texture_2d<f32>;"));
    assert!(wgsl.contains("@group(0) @binding(2) var b_tex: texture_2d<f32>;"));
    assert!(wgsl.contains("fn kernel(texel: vec2<i32>) -> vec4<f32>"));
    assert!(!wgsl.contains("{name}") && !wgsl.contains("{slot}"));
    let glsl = MATMUL.glsl_source();
    assert!(glsl.starts_with("#version 300 es"));
    assert!(glsl.contains("uniform sampler2D b_tex;"));
    assert!(glsl.contains("int a_cols() { return u_shapes[1].y; }"));
    // main() comes after the body so that `kernel` is declared before use.
    assert!(glsl.find("vec4 kernel(").unwrap() < glsl.find("void main()").unwrap());
}

#[test]
fn repeated_lines_unroll_and_leave_no_placeholder() {
    assert_eq!(
        repeat_lines("a\nx{t} = {t};\nb", "{t}", 3),
        "a\nx0 = 0;\nx1 = 1;\nx2 = 2;\nb\n"
    );
    assert_eq!(repeat_lines("x{t}\n", "{t}", 0), "");
    assert_eq!(
        repeat_block("a\n// {p} begin\nx[{p}]\ny\n// {p} end\nb", "{p}", 2),
        "a\nx[0]\ny\nx[1]\ny\nb\n"
    );
    for t in 2..=FAST_TARGETS {
        let k = matmul_fast(t);
        let (wgsl, glsl) = (k.wgsl_source(), k.glsl_source());
        for src in [&wgsl, &glsl] {
            assert!(!src.contains("{t}") && !src.contains("{T}") && !src.contains("{ACCS}"));
            assert!(src.contains(&format!("acc{}", t - 1)) && !src.contains(&format!("acc{t} ")));
        }
        assert!(wgsl.contains(&format!("@location({}) o{}: vec4<f32>", t - 1, t - 1)));
        assert!(wgsl.contains(&format!("-> array<vec4<f32>, {t}>")));
        assert!(glsl.contains(&format!(
            "layout(location = {}) out vec4 out_{};",
            t - 1,
            t - 1
        )));
    }
    for bk in TILED_CHUNKS {
        for &width in tiled_widths(bk) {
            let src = matmul_tiled(bk, width).wgsl_source();
            assert!(!src.contains("{e}") && !src.contains("{BK}") && !src.contains("{p}"));
            assert_eq!(src.matches("fetch_a(li + 256 *").count(), 2 * bk / 8);
            assert_eq!(
                src.matches("fetch_b(li + 256 *").count(),
                2 * width * bk / 1024
            );
            // The chunk's steps written out, no loop over them; a half of 64 columns each.
            assert_eq!(src.matches("let a0 = a_tile[").count(), bk);
            let last = format!("b_tile[{}][tx + 16 * {}]", bk - 1, width / 64 - 1);
            assert!(src.contains(&last), "{last}");
            assert!(!src.contains(&format!("tx + 16 * {}]", width / 64)));
            assert!(!src.contains("for (var p"));
        }
    }
    let src = lcp_jacobi(512, 4, 7, 100, 25, true).wgsl_source();
    assert!(!src.contains("{m}") && !src.contains("{XW}") && !src.contains("{REG}"));
    // The binary holds the solvers' shaders without the spaces no token needs (build.rs).
    assert!(src.contains("const FRICTION:bool=true;"));
    assert!(!src.contains("{p}") && !src.contains("{q}") && src.contains("lane+15]"));
    assert!(src.contains("var ra6=") && !src.contains("var ra7="));
    assert_eq!(
        lcp_jacobi(512, 4, 0, 100, 25, false)
            .compute
            .unwrap()
            .per_group,
        (1, 4)
    );
}

#[test]
fn a_key_is_the_same_for_a_static_source_hashed_once_and_an_owned_copy() {
    use std::borrow::Cow;
    for kernel in [
        MATMUL,
        matmul_tiled(32, 128),
        matmul_tiled(32, 64),
        matvec_tiled(1),
        matvec_tiled(2048),
    ] {
        let owned = Kernel {
            wgsl: Cow::Owned(kernel.wgsl.to_string()),
            glsl: Cow::Owned(kernel.glsl.to_string()),
            ..kernel.clone()
        };
        assert_eq!(kernel.key(), owned.key());
        assert_eq!(kernel.key(), kernel.key(), "found again by its address");
    }
    assert_ne!(MATMUL.key(), matmul_tiled(32, 128).key());
    assert_ne!(matmul_tiled(16, 128).key(), matmul_tiled(32, 128).key());
    assert_ne!(matmul_tiled(32, 64).key(), matmul_tiled(32, 128).key());
}

#[test]
fn shape_uniform_lists_output_then_inputs() {
    let p = Program::new(
        MATMUL,
        vec![Layout { rows: 13, cols: 29 }, Layout { rows: 29, cols: 7 }],
        Layout { rows: 13, cols: 7 },
    )
    .with_params(&[1.5, -2.0, 0.0, 0.0, 7.0]);
    let u = p.uniforms();
    assert_eq!(
        &u.shapes[..4],
        &[[13, 7, 7, 4], [13, 29, 29, 4], [29, 7, 7, 8], [0, 0, 0, 0]]
    );
    assert_eq!(u.params, [[1.5, -2.0, 0.0, 0.0], [7.0, 0.0, 0.0, 0.0]]);
    assert_eq!(std::mem::size_of::<Uniforms>(), 8 * 16 + 2 * 16);
}

/// naga (the WGSL front end and validator wgpu uses) accepts the compute-path products
/// and the single-dispatch contact solvers as generated (with and without wide groups), and
/// the factored contact passes, so a typo in their unrolled lines fails here, not at pipeline
/// creation.
#[cfg(feature = "native")]
#[test]
fn naga_validates_the_compute_kernels() {
    let mut kernels = vec![
        matmul_registers(4, 8),
        matmul_registers(2, 16),
        matmul_registers(4, 32),
        matvec_tiled(1),
        matvec_tiled(2048),
        SUM_SLICES,
        contact_nesterov_group(256, false, (0, 0)),
        contact_nesterov_group(32, true, (0, 0)),
        contact_nesterov_group(256, false, (2000, 300)),
        contact_velocities(),
        contact_nesterov_factored(),
        contact_gauss_seidel(),
        contact_soft_separation(),
        contact_soft_step(),
        contact_soft_group(256, (4, 2), 3.0, (0, 0)),
        contact_soft_group(32, (1, 1), 0.5, (0, 0)),
        contact_soft_group(256, (4, 2), 3.0, (2000, 300)),
        narrow_phase(),
    ];
    for bk in TILED_CHUNKS {
        kernels.extend(tiled_widths(bk).iter().map(|&w| matmul_tiled(bk, w)));
    }
    kernels
        .extend([Reduction::Sum, Reduction::Dot, Reduction::MaxAbs].map(Reduction::compute_pass));
    // Only the tiled product is built without wgpu's run-time checks; a kernel of one's own never.
    let unchecked = |k: &Kernel| k.compute.is_some_and(|c| c.unchecked);
    for kernel in &kernels {
        assert_eq!(
            unchecked(kernel),
            kernel.name.starts_with("matmul_tiled"),
            "{}",
            kernel.name
        );
    }
    let own = super::custom::custom(
        "@compute @workgroup_size(1) fn cs_main() {}",
        "",
        1,
        Some((1, 1)),
    );
    assert!(!unchecked(&own.unwrap()));
    for kernel in kernels {
        let src = kernel.wgsl_source();
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{}: {}", kernel.name, e.emit_to_string(&src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: {e:?}", kernel.name));
    }
}
