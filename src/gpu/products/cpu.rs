//! The product on the CPU ([`ProductKernel::Cpu`]): `op(A) op(B)` of values this program
//! holds, what a software adapter's `matmul` takes. A software adapter
//! (SwiftShader, llvmpipe) emulates a GPU on the same CPU cores and pays for every texel
//! fetch with address arithmetic and bounds checks; a product written for the CPU, four lanes
//! of wasm SIMD at a time, is several times faster there.
//!
//! The usual blocking of a CPU product (GotoBLAS's): `KC` (128) inner indices of B packed into
//! panels of `NR` (8) columns, `MC` (64) rows of A into strips of `MR` (4) rows, and a
//! micro-step that keeps a 4 x 8 block of C in registers over the 128 indices. Each block of
//! 128 is summed from zero and then added to C: blocked summation, as the compute kernels sum
//! their chunks, so that the error grows with `KC + k / KC` rather than with k.
//!
//! Whether a page's products come here is [`Gpu::matmul_kernel`]'s choice; the page's face
//! (`js/products.rs`) takes the operands' CPU copies and holds the result on the CPU.

use super::{ProductKernel, Transpose};
use crate::gpu::Gpu;

impl Gpu {
    /// The kernel a page's `matmul` and `square` take by default
    /// (`capabilities().matmulKernel`), and why: [`ProductKernel::Cpu`] on a software adapter
    /// (or where [`Gpu::set_cpu_products`] asks for it), wherever both operands' values are
    /// held on the CPU (the page falls back to [`Gpu::product_kernel`]'s where one is only on
    /// the GPU); elsewhere [`Gpu::product_kernel`]'s.
    pub fn matmul_kernel(&self) -> (ProductKernel, &'static str) {
        if self.cpu_products() && !self.capabilities().software {
            (
                ProductKernel::Cpu,
                "asked for (option cpuProducts): operands held on the CPU (uploaded with \
                 keepCopies, the default, or made by this kernel) are multiplied there in wasm \
                 SIMD; others on the GPU",
            )
        } else if self.cpu_products() {
            (
                ProductKernel::Cpu,
                "this is a software adapter, a CPU that emulates a GPU and pays for every texel \
                 fetch: operands held on the CPU (uploaded with keepCopies, the default, or made \
                 by this kernel) are multiplied there in wasm SIMD, several times faster than \
                 any shader here; others by the registers kernel on WebGPU, the fast fragment \
                 kernel on WebGL2",
            )
        } else {
            self.product_kernel()
        }
    }

    /// Chooses whether a page's products go to the CPU ([`Gpu::matmul_kernel`]; by default
    /// only on a software adapter), so that tests on a software adapter cover the GPU's ways
    /// too. Set it before the page uploads.
    pub fn set_cpu_products(&self, on: bool) {
        self.cpu_products.set(on);
    }

    /// Whether a page's products go to the CPU ([`Gpu::set_cpu_products`]).
    pub fn cpu_products(&self) -> bool {
        self.cpu_products.get()
    }
}

/// The most multiply-adds (`m k n`) of a product that "auto" takes to the CPU: it runs on the
/// calling thread, and past about a second there (n = 2048 at this project's test VM's 16-20
/// GFLOPS) a page had rather wait for the GPU's kernel, slower where the GPU is emulated but
/// off its thread.
pub const AUTO_MAX_MULTIPLY_ADDS: u64 = 1 << 33;

/// Whether "auto" takes a product of `m x k` by `k x n` to the CPU, by its size
/// ([`AUTO_MAX_MULTIPLY_ADDS`]).
pub fn small_enough(m: usize, k: usize, n: usize) -> bool {
    let [m, k, n] = [m, k, n].map(|x| x as u64);
    m.checked_mul(k)
        .and_then(|mk| mk.checked_mul(n))
        .is_some_and(|x| x <= AUTO_MAX_MULTIPLY_ADDS)
}

/// Rows of C a micro-step keeps in registers.
const MR: usize = 4;
/// Columns of C a micro-step keeps in registers: two lanes of four.
const NR: usize = 8;
/// Inner indices summed from zero in registers before they are added to C.
const KC: usize = 128;
/// Rows of A packed at once (a multiple of [`MR`]).
const MC: usize = 64;

/// `op(a) op(b)` for row-major `a` and `b` whose product is `m x n` over the inner dimension
/// `k` (`a` is `m x k`, or `k x m` where `transpose.a`; `b` is `k x n`, or `n x k`), row-major.
pub fn mul(
    a: &[f32],
    b: &[f32],
    (m, k, n): (usize, usize, usize),
    transpose: Transpose,
) -> Vec<f32> {
    assert_eq!(
        (a.len(), b.len()),
        (m * k, k * n),
        "operands of the wrong size"
    );
    let mut c = vec![0.0; m * n];
    let panels = n.div_ceil(NR);
    let mut b_packed = vec![0.0; KC * NR * panels];
    let mut a_packed = vec![0.0; KC * MC];
    for p0 in (0..k).step_by(KC) {
        let kc = KC.min(k - p0);
        pack_b(b, (k, n), transpose.b, p0, kc, &mut b_packed);
        for i0 in (0..m).step_by(MC) {
            let strips = MC.min(m - i0).div_ceil(MR);
            pack_a(
                a,
                (m, k),
                transpose.a,
                (i0, p0),
                (strips, kc),
                &mut a_packed,
            );
            for (q, panel) in b_packed.chunks_exact(kc * NR).take(panels).enumerate() {
                for (s, strip) in a_packed.chunks_exact(kc * MR).take(strips).enumerate() {
                    let block = micro_step(strip, panel);
                    let (i, j) = (i0 + s * MR, q * NR);
                    let cols = NR.min(n - j);
                    for (r, sums) in block.iter().enumerate().take(MR.min(m - i)) {
                        let row = &mut c[(i + r) * n + j..][..cols];
                        for (x, sum) in row.iter_mut().zip(sums) {
                            *x += sum;
                        }
                    }
                }
            }
        }
    }
    c
}

/// B's rows `p0..p0 + kc` into `out`: panel q holds columns `q NR..(q + 1) NR`, one row of
/// [`NR`] after another, zero past the last column.
fn pack_b(
    b: &[f32],
    (k, n): (usize, usize),
    transposed: bool,
    p0: usize,
    kc: usize,
    out: &mut [f32],
) {
    for (q, panel) in out
        .chunks_exact_mut(kc * NR)
        .take(n.div_ceil(NR))
        .enumerate()
    {
        for (p, row) in panel.chunks_exact_mut(NR).enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                let col = q * NR + j;
                *x = match (col < n, transposed) {
                    (false, _) => 0.0,
                    (true, false) => b[(p0 + p) * n + col],
                    (true, true) => b[col * k + p0 + p],
                };
            }
        }
    }
}

/// A's rows from `i0`, `strips` strips of [`MR`], over the inner indices `p0..p0 + kc`, into
/// `out`: strip s one column of [`MR`] after another, zero past the last row.
fn pack_a(
    a: &[f32],
    (m, k): (usize, usize),
    transposed: bool,
    (i0, p0): (usize, usize),
    (strips, kc): (usize, usize),
    out: &mut [f32],
) {
    for (s, strip) in out.chunks_exact_mut(kc * MR).take(strips).enumerate() {
        for (p, col) in strip.chunks_exact_mut(MR).enumerate() {
            for (r, x) in col.iter_mut().enumerate() {
                let row = i0 + s * MR + r;
                *x = match (row < m, transposed) {
                    (false, _) => 0.0,
                    (true, false) => a[row * k + p0 + p],
                    (true, true) => a[(p0 + p) * m + row],
                };
            }
        }
    }
}

/// The [`MR`] x [`NR`] block of a packed strip of A times a packed panel of B, summed from zero.
#[inline(always)]
fn micro_step(strip: &[f32], panel: &[f32]) -> [[f32; NR]; MR] {
    let mut sums = [[F4::ZERO; 2]; MR];
    for (a, b) in strip.chunks_exact(MR).zip(panel.chunks_exact(NR)) {
        let (b0, b1) = (F4::load(&b[..4]), F4::load(&b[4..]));
        for (sum, &x) in sums.iter_mut().zip(a) {
            let x = F4::splat(x);
            sum[0] = sum[0].add_mul(x, b0);
            sum[1] = sum[1].add_mul(x, b1);
        }
    }
    sums.map(|[left, right]| {
        let (left, right) = (left.to_array(), right.to_array());
        std::array::from_fn(|j| if j < 4 { left[j] } else { right[j - 4] })
    })
}

use lanes::F4;

/// Four float32 lanes: wasm SIMD's `f32x4` in wasm, an array elsewhere (the same arithmetic:
/// a product rounded, then a sum rounded, no fused multiply-add).
#[cfg(target_arch = "wasm32")]
mod lanes {
    use core::arch::wasm32::{
        f32x4, f32x4_add, f32x4_extract_lane, f32x4_mul, f32x4_splat, v128, v128_load,
    };

    /// Four float32 lanes.
    #[derive(Clone, Copy)]
    pub struct F4(v128);

    impl F4 {
        /// Four zeros.
        pub const ZERO: F4 = F4(f32x4(0.0, 0.0, 0.0, 0.0));

        /// The first four values of `x` (at least four).
        #[inline(always)]
        pub fn load(x: &[f32]) -> F4 {
            assert!(x.len() >= 4);
            // SAFETY: the four floats are in bounds (checked above); wasm loads need no alignment.
            F4(unsafe { v128_load(x.as_ptr().cast::<v128>()) })
        }

        /// `x` in every lane.
        #[inline(always)]
        pub fn splat(x: f32) -> F4 {
            F4(f32x4_splat(x))
        }

        /// `self + a b`, lane by lane.
        #[inline(always)]
        pub fn add_mul(self, a: F4, b: F4) -> F4 {
            F4(f32x4_add(self.0, f32x4_mul(a.0, b.0)))
        }

        /// The lanes.
        #[inline(always)]
        pub fn to_array(self) -> [f32; 4] {
            [
                f32x4_extract_lane::<0>(self.0),
                f32x4_extract_lane::<1>(self.0),
                f32x4_extract_lane::<2>(self.0),
                f32x4_extract_lane::<3>(self.0),
            ]
        }
    }
}

/// Four float32 lanes.
#[cfg(not(target_arch = "wasm32"))]
mod lanes {
    /// Four float32 lanes.
    #[derive(Clone, Copy)]
    pub struct F4([f32; 4]);

    impl F4 {
        /// Four zeros.
        pub const ZERO: F4 = F4([0.0; 4]);

        /// The first four values of `x` (at least four).
        #[inline(always)]
        pub fn load(x: &[f32]) -> F4 {
            F4([x[0], x[1], x[2], x[3]])
        }

        /// `x` in every lane.
        #[inline(always)]
        pub fn splat(x: f32) -> F4 {
            F4([x; 4])
        }

        /// `self + a b`, lane by lane.
        #[inline(always)]
        pub fn add_mul(self, a: F4, b: F4) -> F4 {
            F4(std::array::from_fn(|i| self.0[i] + a.0[i] * b.0[i]))
        }

        /// The lanes.
        #[inline(always)]
        pub fn to_array(self) -> [f32; 4] {
            self.0
        }
    }
}

/// The error bound of [`mul`]'s element with `abs_sum` = Σₚ |a_ip b_pj| over an inner dimension
/// `k`: blocked summation, `(KC + ceil(k / KC) + 1) u Σ|a b|` (u = 2⁻²⁴), against float32's
/// `k u Σ|a b|` for one running sum.
pub fn error_bound(k: usize, abs_sum: f64) -> f64 {
    (KC + k.div_ceil(KC) + 1) as f64 * crate::reference::F32_UNIT_ROUNDOFF * abs_sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{compare, matmul, transpose, Rng};

    #[test]
    fn every_shape_and_transpose_matches_float64_within_the_blocked_bound() {
        let mut rng = Rng::new(5);
        // Edges of every block: under one micro-step, one, and past MR, NR, KC and MC.
        let shapes = [
            (1, 1, 1),
            (3, 5, 7),
            (4, 8, 8),
            (5, 129, 9),
            (65, 300, 17),
            (130, 257, 67),
        ];
        for (m, k, n) in shapes {
            let (a, b) = (rng.matrix(m * k, -1.0, 1.0), rng.matrix(k * n, 0.0, 1.0));
            let (exact, sums) = matmul(&a, &b, m, k, n);
            let bound: Vec<f64> = sums.iter().map(|&s| error_bound(k, s)).collect();
            let (at, bt) = (transpose(&a, m, k), transpose(&b, k, n));
            for (t, x, y) in [
                (Transpose::NONE, &a, &b),
                (Transpose::A, &at, &b),
                (Transpose::B, &a, &bt),
                (Transpose::BOTH, &at, &bt),
            ] {
                let c = mul(x, y, (m, k, n), t);
                let cmp = compare(&c, &exact, &bound);
                assert!(cmp.worst_bound_ratio <= 1.0, "{m}x{k}x{n} {t:?}: {cmp:?}");
            }
        }
        assert!(mul(&[], &[], (0, 0, 3), Transpose::NONE).is_empty());
        assert_eq!(mul(&[], &[], (2, 0, 2), Transpose::NONE), [0.0; 4]);
    }

    #[test]
    fn auto_takes_products_up_to_2_to_the_33_multiply_adds() {
        assert!(small_enough(2048, 2048, 2048) && small_enough(1 << 13, 1 << 10, 1 << 10));
        assert!(!small_enough(2048, 2048, 2049) && !small_enough(4096, 4096, 4096));
        assert!(!small_enough(usize::MAX, usize::MAX, 2) && small_enough(0, usize::MAX, 5));
    }

    #[test]
    fn a_long_inner_dimension_is_summed_in_blocks() {
        // Each product is exact; a running float32 sum past 2^13 rounds off the small parts of
        // every term, the blocks of KC keep them until the blocks' sums are added.
        let k = 1 << 14;
        let a = vec![1.0f32; k];
        let b: Vec<f32> = (0..k)
            .map(|p| 1.0 + (p % 7) as f32 * 2f32.powi(-12))
            .collect();
        let (exact, sums) = matmul(&a, &b, 1, k, 1);
        let running = b.iter().fold(0.0f32, |s, &x| s + x);
        let c = mul(&a, &b, (1, k, 1), Transpose::NONE);
        let (error, naive) = (
            (f64::from(c[0]) - exact[0]).abs(),
            (f64::from(running) - exact[0]).abs(),
        );
        assert!(
            error <= error_bound(k, sums[0]) && error * 50.0 < naive,
            "{error:e} {naive:e}"
        );
    }
}
