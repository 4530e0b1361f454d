//! Matrix products: the teaching kernel, the fast fragment kernel (several render targets),
//! the compute-path tiled product, the transposed products and the matrix-vector products.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::{Compute, Kernel, Template};

/// `C = A * B`: inputs `a` (m x k) and `b` (k x n), output m x n.
pub const MATMUL: Kernel = shader_kernel!("products", "matmul", &["a", "b"]);
/// One accumulation pass of `C = A * B`: `c` (the partial product so far) plus the inner
/// indices `param(0) .. param(0) + param(1)` of `a b` (the thesis's multiplication by passes).
pub const MATMUL_PASS: Kernel = shader_kernel!("products", "matmul_pass", &["a", "b", "c"]);
/// Most render targets [`matmul_fast`] writes in one pass.
pub const FAST_TARGETS: usize = 8;

/// `C = A * B`, the fast fragment kernel: each fragment computes `targets` output texels, one
/// per render target, reusing its A texels for all of them. The output of the run is one slab
/// of `ceil(n / targets)` columns per target; the slabs are then copied side by side into C.
pub fn matmul_fast(targets: usize) -> Kernel {
    let accs: Vec<String> = (0..targets).map(|i| format!("acc{i}")).collect();
    let unrolled = |template: Template| template.repeat_lines("t", targets).register("T", targets);
    Kernel {
        name: format!("matmul_fast{targets}").into(),
        inputs: &["a", "b"],
        wgsl: unrolled(template!("products/matmul_fast.wgsl"))
            .register("ACCS", accs.join(", "))
            .complete()
            .into(),
        // GLSL hands its targets out through `out` parameters: no list of accumulators.
        glsl: unrolled(template!("products/matmul_fast.glsl"))
            .complete()
            .into(),
        outputs: targets,
        compute: None,
    }
}

/// Depths of the inner-dimension chunk [`matmul_tiled`] takes (a multiple of 8).
pub const TILED_CHUNKS: [usize; 3] = [8, 16, 32];

/// The texel fetches of a chunk of k that [`matmul_tiled`] and [`matmul_tensor`] share.
const CHUNK_FETCH: &str = include_str!("../../shaders/products/chunk_fetch.wgsl");

/// Bytes of workgroup memory [`matmul_tiled`] declares for chunks of `bk` and blocks of `width`
/// columns.
pub fn tiled_workgroup_bytes(bk: usize, width: usize) -> usize {
    bk * (32 + width / 4) * 16
}

/// Widths in columns of the blocks of C a [`matmul_tiled`] workgroup computes: 128, or 64 for
/// twice the workgroups where C has too few blocks to fill the GPU.
pub const TILED_WIDTHS: [usize; 2] = [128, 64];

/// The widths of [`TILED_WIDTHS`] chunks of `bk` take: those whose B tile the 256 threads copy
/// in whole texels each (`width * bk / 1024`), so blocks of 64 from chunks of 16.
pub fn tiled_widths(bk: usize) -> &'static [usize] {
    let n = TILED_WIDTHS.iter().take_while(|&&w| w * bk >= 1024).count();
    &TILED_WIDTHS[..n]
}

/// `C = A * B` on the compute path: workgroups of 16 x 16 threads, each computing 128 rows x
/// `width` columns of C (one of [`TILED_WIDTHS`]); chunks of `bk` (one of [`TILED_CHUNKS`], at
/// least 16 for blocks of 64) of the inner dimension pass through workgroup memory, each chunk's
/// `bk` steps written out and summed from zero before being added to the running sums (blocked
/// summation); 8 x `width` / 16 outputs per thread in registers. Each kernel's source is built
/// once and kept: building it on every call was the largest of texla's own costs in recording a
/// product (a profile through Dawn on SwiftShader); with it kept, and the submissions of
/// `backend/webgpu/`, recording a product through Dawn on the H100 took 53 us, not 77.
pub fn matmul_tiled(bk: usize, width: usize) -> Kernel {
    static SOURCES: [OnceLock<String>; TILED_CHUNKS.len() * TILED_WIDTHS.len()] =
        [const { OnceLock::new() }; 6];
    let chunk = TILED_CHUNKS.iter().position(|&c| c == bk);
    let wide = TILED_WIDTHS.iter().position(|&w| w == width);
    let (Some(chunk), Some(wide)) = (chunk, wide) else {
        panic!("chunks of {bk} and blocks of {width}: not of TILED_CHUNKS and TILED_WIDTHS");
    };
    assert!(
        tiled_widths(bk).contains(&width),
        "blocks of {width} take chunks of at least 16"
    );
    let wgsl = SOURCES[chunk * TILED_WIDTHS.len() + wide].get_or_init(|| {
        template!("products/matmul_tiled.wgsl")
            .repeat_lines("h", width / 64)
            .repeat_lines("e", bk / 8)
            .repeat_lines("f", width * bk / 1024)
            .repeat_block("p", bk)
            .register("BK", bk)
            .register("BN", width)
            .register("BG", width / 4)
            .complete()
            + CHUNK_FETCH
    });
    Kernel {
        name: format!("matmul_tiled_{bk}_{width}").into(),
        inputs: &["a", "b"],
        wgsl: Cow::Borrowed(wgsl),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (width, 32),
            scratch_words: 0,
            unchecked: true,
        }),
    }
}

/// Depth of the inner-dimension chunk [`matmul_tensor`] takes: on an H100 natively chunks of
/// 64 made 194-202 TFLOPS at n = 4096 and 8192, chunks of 32 166-174
/// (`bench/records/h100/products/tensor-2026-11-27.log`).
pub const TENSOR_CHUNK: usize = 64;

/// Bytes of workgroup memory [`matmul_tensor`] declares for chunks of `bk`: A's and B's tiles
/// as float16 with padded strides, and one 16 x 16 float32 tile a subgroup.
pub fn tensor_workgroup_bytes(bk: usize) -> usize {
    2 * (bk * 136 + 128 * (bk + 8)) + 8 * 256 * 4
}

/// `C = A * B` of float16 matrices on cooperative matrices (natively only, as wgpu's are):
/// workgroups of 8 subgroups of 32, each workgroup computing 128 x 128 elements of C, each
/// subgroup 4 x 2 tiles of 16 x 16 with float32 sums; chunks of `bk` (a multiple of 16) of the
/// inner dimension pass through workgroup memory as float16
/// (`shaders/products/matmul_tensor.wgsl`).
pub fn matmul_tensor(bk: usize) -> Kernel {
    assert!(
        bk.is_multiple_of(16) && (16..=64).contains(&bk),
        "chunks of 16, 32, 48 or 64"
    );
    // Built once per depth and kept, as matmul_tiled's: filling the template and hashing a new
    // source took about 60 us a call.
    static SOURCES: [OnceLock<String>; 4] = [const { OnceLock::new() }; 4];
    let wgsl = SOURCES[bk / 16 - 1].get_or_init(|| {
        template!("products/matmul_tensor.wgsl")
            .repeat_lines("e", bk / 8)
            .repeat_block("q", bk / 16)
            .register("BK", bk)
            .complete()
            + CHUNK_FETCH
    });
    Kernel {
        name: format!("matmul_tensor_{bk}").into(),
        inputs: &["a", "b"],
        wgsl: Cow::Borrowed(wgsl),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (128, 32),
            scratch_words: 0,
            unchecked: false,
        }),
    }
}

/// `C = A * B` on the compute path with no workgroup memory: each invocation keeps `rows`
/// output texel rows x `cols` columns in registers (`shaders/products/matmul_registers.wgsl`);
/// workgroups of 8 x 8 invocations.
pub fn matmul_registers(rows: usize, cols: usize) -> Kernel {
    let source = super::built_shader!("products", "matmul_registers", ".wgsl");
    let wgsl = super::Template::new("products/matmul_registers.wgsl", source)
        .register("R", rows)
        .register("C", cols)
        .repeat_lines("c", cols)
        .repeat_lines("r", rows)
        .complete();
    Kernel {
        name: format!("matmul_registers_{rows}x{cols}").into(),
        inputs: &["a", "b"],
        wgsl: wgsl.into(),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (8 * cols, 8 * rows),
            scratch_words: 0,
            unchecked: false,
        }),
    }
}

/// `C` from the stacked partial products of a split-k [`matmul_tiled`] (input `p`): their sum.
pub const SUM_SLICES: Kernel = Kernel {
    name: Cow::Borrowed("sum_slices"),
    inputs: &["p"],
    wgsl: Cow::Borrowed(include_str!("../../shaders/products/sum_slices.wgsl")),
    glsl: Cow::Borrowed(""),
    outputs: 1,
    compute: Some(Compute {
        per_group: (64, 4),
        scratch_words: 0,
        unchecked: false,
    }),
};

/// `y = A x` on the compute path, one dispatch, partial sums added in workgroup memory; for a
/// matrix of `texel_rows` texel rows, workgroups of 64 x 4 threads summing 8 texel rows each,
/// or of 128 x 2 summing 4 where that would leave fewer than 256 workgroups: on an H100 the
/// smaller blocks made A x 1.36-1.42x faster at n = 1024 and 2048, 1.13x at 3072, as fast at
/// 4096 and 3% slower at 8192 (`bench/records/h100/products/matvec-kernels-2026-11-27.log`).
/// The shape is two constants before the kernel's source.
pub fn matvec_tiled(texel_rows: usize) -> Kernel {
    macro_rules! shape {
        ($lanes:literal, $ty:literal) => {
            concat!(
                "const LANES: i32 = ",
                $lanes,
                ";\nconst TY: i32 = ",
                $ty,
                ";\n",
                super::built_shader!("products", "matvec_tiled", ".wgsl")
            )
        };
    }
    let (name, wgsl, ty) = if texel_rows.div_ceil(8) < 256 {
        ("matvec_tiled_128", shape!(128, 2), 2)
    } else {
        ("matvec_tiled_64", shape!(64, 4), 4)
    };
    Kernel {
        name: Cow::Borrowed(name),
        inputs: &["a", "b"],
        wgsl: Cow::Borrowed(wgsl),
        glsl: Cow::Borrowed(""),
        outputs: 1,
        compute: Some(Compute {
            per_group: (1, 2 * ty),
            scratch_words: 0,
            unchecked: false,
        }),
    }
}

/// `C = A^T * B`: inputs `a` (k x m) and `b` (k x n), output m x n.
pub const TR_MUL: Kernel = shader_kernel!("products", "tr_mul", &["a", "b"]);
/// `C = A * B^T`: inputs `a` (m x k) and `b` (n x k), output m x n.
pub const MUL_TR: Kernel = shader_kernel!("products", "mul_tr", &["a", "b"]);
/// `y = A x` for the 2D Poisson matrix without A: the 5-point Laplacian of `a`, an m x n grid
/// of values (zero outside it), output of the same shape.
pub const LAPLACIAN: Kernel = shader_kernel!(built "solvers", "laplacian", &["a"]);
/// [`LAPLACIAN`] of one tile of a grid: inputs the tile `a` and the tiles left `b`, right `c`,
/// above `d` and below `e` of it; params whether each of those exists (1.0) or not (0.0).
pub const LAPLACIAN_TILE: Kernel =
    shader_kernel!(built "solvers", "laplacian_tile", &["a", "b", "c", "d", "e"]);
/// `T = A^T`.
pub const TRANSPOSE: Kernel = shader_kernel!("products", "transpose", &["a"]);

/// Blocked matrix-vector product, first pass: partial sums over blocks of `param(0)` columns.
pub const MATVEC_PARTIAL: Kernel = shader_kernel!("products", "matvec_partial", &["a", "b"]);
/// Blocked matrix-vector product, second pass: the sum across each row of partial sums.
pub const SUM_COLS: Kernel = shader_kernel!("products", "sum_cols", &["a"]);
