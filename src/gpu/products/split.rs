//! How the compute-path product cuts its work: the chunk depth it takes, and the slices of k
//! and the width of the blocks that fill the GPU.

use crate::kernels;
use crate::layout::Layout;

/// Workgroups of the compute-path product in flight at once on the GPU its plan was measured
/// on: an H100's 132 SMs, one workgroup each (256 threads at 161 registers a thread).
const WAVE: usize = 132;
/// The least depth of k a slice of a split product takes.
const MIN_SLICE_DEPTH: usize = 64;
/// The most bytes a split product's stacked slices may take: on the H100 natively, products
/// writing or reading textures over 128 MiB (wgpu's largest shared memory block; larger ones get
/// blocks of their own) ran at a third of the speed (`bench/records/h100/products/`
/// `kernel-sweep-2026-11-26.log`: k in 4 slices at n = 3072 made 9 TFLOPS, in 2 slices 40).
const MAX_STACKED_BYTES: usize = 128 << 20;

/// The slices of k (1 to 4) and the width of the workgroups' blocks (of `widths`: 128, 64 or
/// both) a compute-path product of the output `out` and inner dimension `k` runs with. The
/// slices: the fewest waves of full-depth work, counting a partly filled wave of [`WAVE`]
/// workgroups as a whole one, fewer slices where equal; each slice at least
/// [`MIN_SLICE_DEPTH`] deep, the stacked slices at most [`MAX_STACKED_BYTES`]. The wave model
/// matched the H100's best split of blocks of 128 at every n of the sweep in
/// `kernel-sweep-2026-11-26.log` (1024: 2 slices, 1280: 1, 1536: 4, 1792: 2, 2500: 4, 3072: 2).
/// Where blocks of 128 split k, blocks of 64 (where allowed) take the most slices, up to as many,
/// that still fit one wave, if that leaves no fewer workgroups: at 1024 one pass of 128
/// workgroups instead of two slices and their sum, at 512 twice the workgroups. On the H100
/// natively that made n = 1024 34.2-34.5 TFLOPS against 31.2-31.3 and 512 12.6-13.0 against
/// 9.8-9.9, while from n = 2048 blocks of 64 were 8-10% slower than blocks of 128, and at 768
/// (72 of them in one slice against 108 in three) 12% slower (`narrow-blocks-2026-11-28.log`).
pub(super) fn split_k(out: Layout, k: usize, widths: &[usize]) -> (usize, usize) {
    let stacked = |s: usize| s * out.rows.div_ceil(128) * 128 * out.cols * 4;
    let blocks = |w: usize| out.cols.div_ceil(w) * out.rows.div_ceil(128);
    let slices = |w: usize| {
        let waves = |s: usize| (blocks(w) * s).div_ceil(WAVE);
        (2..=4)
            .filter(|&s| k / s >= MIN_SLICE_DEPTH && stacked(s) <= MAX_STACKED_BYTES)
            // waves(s) / s < waves(best) / best, in integers; ties keep the fewer slices.
            .fold(1, |best, s| {
                if waves(s) * best < waves(best) * s {
                    s
                } else {
                    best
                }
            })
    };
    if let [w] = widths {
        return (slices(*w), *w);
    }
    // Where blocks of 128 split k, blocks of 64 with the most slices (up to as many) that still
    // fit one wave, if they leave no fewer workgroups.
    let (s, narrow) = (slices(128), blocks(64));
    match (1..=s).rev().find(|&n| narrow * n <= WAVE) {
        Some(n) if s > 1 && narrow * n >= blocks(128) * s => (n, 64),
        _ => (s, 128),
    }
}

/// The chunk depth [`ProductKernel::Auto`](super::ProductKernel::Auto) takes on the compute
/// path: the deepest of [`kernels::TILED_CHUNKS`] whose tiles fit the device's `storage` bytes
/// of workgroup memory.
/// With blocked summation (a partial sum per chunk) the deepest is the fastest on the H100: the
/// adds of the partials into the running sums cost one per chunk.
pub(super) fn auto_chunk(storage: usize) -> usize {
    kernels::TILED_CHUNKS
        .into_iter()
        .rev()
        .find(|&bk| kernels::tiled_workgroup_bytes(bk, 128) <= storage)
        .unwrap_or(kernels::TILED_CHUNKS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_products_split_k_until_the_gpu_is_full() {
        let split = |m, k, n| split_k(Layout { rows: m, cols: n }, k, &[128]).0;
        assert_eq!(split(1024, 1024, 1024), 2); // 64 blocks: 128 fill one wave
        assert_eq!(split(1280, 1280, 1280), 1); // 100 blocks: 200 or 300 take 2 or 3 waves
        assert_eq!(split(1536, 1024, 1536), 4); // 144 blocks: 576 in 5 waves
        assert_eq!(split(2048, 2048, 2048), 1); // 256 blocks: 2 waves whatever the split
        assert_eq!(split(3072, 3072, 3072), 2); // 4 slices would stack 151 MB
        assert_eq!(split(37, 1030, 65), 4);
        assert_eq!(split(130, 200, 259), 3); // each slice at least 64 deep
        assert_eq!(split(8192, 8192, 8192), 1);
        // Blocks of 64 columns fill the GPU without the split's second pass.
        let both = |m, k, n| split_k(Layout { rows: m, cols: n }, k, &[128, 64]);
        assert_eq!(both(1024, 1024, 1024), (1, 64)); // 128 narrow blocks: one wave
        assert_eq!(both(512, 512, 512), (4, 64)); // 32 narrow blocks in 4 slices: one wave
        assert_eq!(both(768, 768, 768), (3, 128)); // 72 narrow blocks are fewer than 108
        assert_eq!(both(1280, 1280, 1280), (1, 128));
        assert_eq!(both(1536, 1024, 1536), (4, 128)); // 144 wide blocks: more than a wave
        assert_eq!(both(2048, 2048, 2048), (1, 128));
        assert_eq!(both(3072, 3072, 3072), (2, 128));
        assert_eq!(both(8192, 8192, 8192), (1, 128));
        assert_eq!(
            split_k(
                Layout {
                    rows: 1024,
                    cols: 1024
                },
                1024,
                &[64]
            ),
            (1, 64)
        );
    }
}
