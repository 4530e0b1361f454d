// The lessons' exercises: how the page judges an answer. Each answer is computed here from the
// question's numbers (not typed in), so changing a question's numbers in one place changes its
// answer too. `why` is said when the answer is right; the worked solution is in index.html.

import { poissonCondition as condition } from "../reference/lessons.js";

/** The numbers in a text, in order: "5, 2" and "(5; 2)" both give [5, 2]; "2^-14" is 2⁻¹⁴. */
export function numbers(text) {
  const powers = text.replace(/(-?\d+(?:\.\d+)?)\s*(?:\^|\*\*)\s*\(?\s*(-?\d+)\s*\)?/g, (_, b, e) => String(Number(b) ** Number(e)));
  return (powers.replace(/[−–]/g, "-").match(/-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?/gi) ?? []).map(Number);
}

/** True when `text` holds exactly one number within `rel` (relative) of `want`. */
const near = (want, rel = 0) => (text) => {
  const got = numbers(text.replace(/[,_ ](?=\d{3}\b)/g, ""));
  return got.length === 1 && Math.abs(got[0] - want) <= rel * Math.abs(want);
};

// The questions' numbers.
export const ADD_SIDE = 64;
export const TEXEL = { m: 13, n: 7, i: 10, j: 5 };
export const FETCH_N = 64;
export const BOUND_K = 1000;
export const TARGETS = 8;
export const WORKGROUP = { threads: 16, perThread: 8 };
export const SUM_SIDE = 1024;
export const ULP_AT = 1000;
export const COND_N = 10;
export const LCP = { a: [[2, 1], [1, 2]], b: [-5, 1] };
export const BLOCKS_N = 12;
export const NMF = { pixels: 361, images: 1024, k: 144 };

/** Passes of gpu.sum on an m x n matrix: 16-fold passes to one texel, then one for its 4. */
export function sumPasses(m, n) {
  let [w, h, passes] = [n, Math.ceil(m / 4), 0];
  do {
    [w, h] = [Math.ceil(w / 4), Math.ceil(h / 4)];
    passes++;
  } while (w > 1 || h > 1);
  return passes + 1;
}

/** The float32 spacing at |x|. */
function ulp32(x) {
  const f = new Float32Array([Math.abs(x)]);
  const u = new Uint32Array(f.buffer);
  const here = f[0];
  u[0] += 1;
  return f[0] - here;
}

/** The 2 x 2 LCP's answer: the one of its four complementary pieces that is feasible. */
function solveLcp2({ a, b }) {
  for (const [x0, x1] of [[0, 0], [-b[0] / a[0][0], 0], [0, -b[1] / a[1][1]], null].map((c) => c ?? (() => {
    const det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
    return [(-b[0] * a[1][1] + b[1] * a[0][1]) / det, (-b[1] * a[0][0] + b[0] * a[1][0]) / det];
  })())) {
    const w = [a[0][0] * x0 + a[0][1] * x1 + b[0], a[1][0] * x0 + a[1][1] * x1 + b[1]];
    const eps = 1e-12;
    if (x0 >= -eps && x1 >= -eps && w[0] >= -eps && w[1] >= -eps && Math.abs(x0 * w[0]) < eps && Math.abs(x1 * w[1]) < eps) return [x0, x1];
  }
  throw new Error("this LCP has no solution");
}

/** Non-zero 4 x 4 blocks of the n x n tridiagonal matrix. */
function tridiagonalBlocks(n) {
  const blocks = new Set();
  for (let i = 0; i < n; i++) for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < n) blocks.add(`${i >> 2},${j >> 2}`);
  return blocks.size;
}


export const EXERCISES = {
  fragments: {
    check: near(ADD_SIDE * Math.ceil(ADD_SIDE / 4)),
    why: `${ADD_SIDE} columns × ${ADD_SIDE / 4} texel rows: one fragment per output texel.`,
  },
  texel: {
    check: (text) => {
      const [x, y, ...rest] = numbers(text);
      const letter = text.replace(/\d|[^a-z]/gi, " ").trim().split(/\s+/).pop()?.toLowerCase();
      const channel = rest.length === 1 ? rest[0] : "rgba".indexOf(letter ?? "");
      return x === TEXEL.j && y === Math.floor(TEXEL.i / 4) && channel === TEXEL.i % 4 && rest.length <= 1;
    },
    why: `x is the column (${TEXEL.j}), y = ⌊${TEXEL.i}/4⌋ = ${Math.floor(TEXEL.i / 4)}, channel ${TEXEL.i} mod 4 = ${TEXEL.i % 4} (${"rgba"[TEXEL.i % 4]}).`,
  },
  fetches: {
    check: near((FETCH_N / 4) * 5),
    why: `${FETCH_N / 4} steps of 4 inner indices, each 4 texels of A and 1 of B.`,
  },
  bound: {
    check: near(2 * (BOUND_K + 2) * 2 ** -24, 0.01),
    why: `2 · ${BOUND_K + 2} · 2⁻²⁴ ≈ ${(2 * (BOUND_K + 2) * 2 ** -24).toExponential(3)} of Σ|aᵢₚbₚⱼ|.`,
  },
  targets: {
    check: near(4 + TARGETS),
    why: `4 texels of A, shared by all ${TARGETS} targets, plus one texel of B per target.`,
  },
  workgroup: {
    check: near((WORKGROUP.threads * WORKGROUP.perThread) ** 2),
    why: `${WORKGROUP.threads}² threads × ${WORKGROUP.perThread}² outputs: a ${WORKGROUP.threads * WORKGROUP.perThread} × ${WORKGROUP.threads * WORKGROUP.perThread} block.`,
  },
  passes: {
    check: near(sumPasses(SUM_SIDE, SUM_SIDE)),
    why: `${sumPasses(SUM_SIDE, SUM_SIDE) - 1} passes of 16 texels each bring ${SUM_SIDE} × ${SUM_SIDE / 4} texels to one, and one more adds its four channels.`,
  },
  ulp: {
    check: near(ulp32(ULP_AT), 1e-3),
    why: `${ULP_AT} lies in [2⁹, 2¹⁰), where float32's 24 bits are spaced 2^(9−23) = 2⁻¹⁴ apart.`,
  },
  condition: {
    check: near(condition(COND_N), 0.01),
    why: `λmax/λmin = (2 − 2cos(${COND_N}π/${COND_N + 1})) / (2 − 2cos(π/${COND_N + 1})) ≈ ${condition(COND_N).toFixed(2)}.`,
  },
  lcp: {
    check: (text) => {
      const got = numbers(text);
      const want = solveLcp2(LCP);
      return got.length === 2 && got.every((v, i) => Math.abs(v - want[i]) < 1e-6);
    },
    why: `x = (${solveLcp2(LCP).join(", ")}): the second unknown is 0 and its w is positive.`,
  },
  blocks: {
    check: near(tridiagonalBlocks(BLOCKS_N)),
    why: `the ${BLOCKS_N / 4} diagonal blocks and the ${tridiagonalBlocks(BLOCKS_N) - BLOCKS_N / 4} beside them that the off-diagonals cross.`,
  },
  nmf: {
    check: near(NMF.k * (NMF.pixels + NMF.images)),
    why: `U is ${NMF.pixels} × ${NMF.k} and V is ${NMF.images} × ${NMF.k}: ${NMF.k} · (${NMF.pixels} + ${NMF.images}).`,
  },
};
