// Float64 reference math in JavaScript, the yardstick of every GPU result on the page.
// The twin of src/reference.rs: same generator, same bound.

/** mulberry32: a small seeded generator; returns a function giving values uniform in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `len` values uniform in [lo, hi), rounded to float32, from `next`. */
export function randomMatrix(next, len, lo = -1, hi = 1) {
  const out = new Float32Array(len);
  for (let i = 0; i < len; i++) out[i] = lo + (hi - lo) * next();
  return out;
}

/**
 * C = A * B in float64 for row-major A (m x k) and B (k x n). Also returns S with
 * S[i][j] = sum_p |a_ip b_pj|, the magnitude that bounds the float32 rounding error of C[i][j].
 */
export function matmul64(a, b, m, k, n) {
  const c = new Float64Array(m * n);
  const s = new Float64Array(m * n);
  const bd = Float64Array.from(b);
  for (let i = 0; i < m; i++) {
    const row = i * n;
    for (let p = 0; p < k; p++) {
      const aip = a[i * k + p];
      const off = p * n;
      for (let j = 0; j < n; j++) {
        const prod = aip * bd[off + j];
        c[row + j] += prod;
        s[row + j] += Math.abs(prod);
      }
    }
  }
  return { c, s };
}

/** C = A * B in float64 and nothing else: the JavaScript speed the benchmark compares with. */
export function matmulOnly64(a, b, m, k, n) {
  const c = new Float64Array(m * n);
  const bd = Float64Array.from(b);
  for (let i = 0; i < m; i++) {
    const row = i * n;
    for (let p = 0; p < k; p++) {
      const aip = a[i * k + p];
      const off = p * n;
      for (let j = 0; j < n; j++) c[row + j] += aip * bd[off + j];
    }
  }
  return c;
}

/** Unit roundoff of float32. */
export const F32_UNIT_ROUNDOFF = 2 ** -24;

/** Allowed |gpu - exact| of one element of a length-k float32 dot product: 2 (k+2) u sum|a b|. */
export function dotErrorBound(k, absSum) {
  return 2 * (k + 2) * F32_UNIT_ROUNDOFF * absSum;
}

/**
 * Compares a GPU result with the float64 one. Returns the max absolute error, the max relative
 * error (relative to max |exact|), the worst ratio error/bound (<= 1: every element within
 * bound; NaN counts as infinitely bad) and where it occurs.
 */
export function compare(gpu, exact, sums, k) {
  let scale = 0;
  for (const v of exact) scale = Math.max(scale, Math.abs(v));
  let maxAbs = 0;
  let worstRatio = 0;
  let worstIndex = 0;
  for (let i = 0; i < exact.length; i++) {
    const err = Math.abs(gpu[i] - exact[i]);
    const bad = Number.isNaN(err);
    const ratio = bad ? Infinity : err === 0 ? 0 : err / dotErrorBound(k, sums[i]);
    maxAbs = Math.max(maxAbs, bad ? Infinity : err);
    if (ratio > worstRatio) {
      worstRatio = ratio;
      worstIndex = i;
    }
  }
  return { maxAbs, maxRel: scale > 0 ? maxAbs / scale : maxAbs, worstRatio, worstIndex, scale };
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Spacing of float32 numbers at |x| (one ULP of the float32 nearest x); 2^-149 at zero. */
export function ulp32(x) {
  f32[0] = Math.abs(x);
  const bits = u32[0];
  if (bits >= 0x7f800000) return Infinity;
  const here = f32[0];
  u32[0] = bits + 1;
  return f32[0] - here;
}

/** |gpu - exact| in ULPs of the correctly rounded float32 result. */
export function ulpError(gpu, exact) {
  return Math.abs(gpu - exact) / ulp32(exact);
}

/**
 * Error statistics of GPU values against float64 ones: max absolute, max relative (to each
 * |exact|, over non-zero exact values), max ULP (of |exact|, or of `scale[i]` where larger),
 * the index of the worst ULP error, and the special-value mismatches (where exactly one side
 * is NaN or infinite, or the infinities differ).
 */
export function errorStats(gpu, exact, scale) {
  const s = { maxAbs: 0, maxRel: 0, maxUlp: 0, worst: -1, mismatches: [] };
  for (let i = 0; i < exact.length; i++) {
    const g = gpu[i];
    const e = exact[i];
    if (!Number.isFinite(e) || !Number.isFinite(g)) {
      const same = (Number.isNaN(g) && Number.isNaN(e)) || g === e;
      if (!same) s.mismatches.push(i);
      continue;
    }
    const err = Math.abs(g - e);
    s.maxAbs = Math.max(s.maxAbs, err);
    if (e !== 0) s.maxRel = Math.max(s.maxRel, err / Math.abs(e));
    const u = err / ulp32(scale ? Math.max(Math.abs(e), scale[i]) : e);
    if (u > s.maxUlp || s.worst < 0) {
      s.maxUlp = Math.max(s.maxUlp, u);
      s.worst = i;
    }
  }
  return s;
}
