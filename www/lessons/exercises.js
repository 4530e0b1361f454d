// The lessons' exercises: how the page judges an answer. Each answer is computed here from the
// question's numbers (not typed in), so changing a question's numbers in one place changes its
// answer too. Answers are read by numbers.js, as people write numbers (1.19 × 10⁻⁴, 2^-14,
// 16,384, 3/4, "80 fetches"), and a refused one is told why. `judge(text)` gives { right, reason
// }, `check(text)` just whether it is right; `why` is said when the answer is right; the worked
// solution is in index.html (its answer marked class="answer").

import { poissonCondition as condition } from "../reference/lessons.js";
import { judgeNumber, judgeList, splitList } from "./numbers.js";

/** An exercise whose answer is one number: `want`, judged by numbers.js with `options` (tol,
 * unit, whole); `why` is said when it is right. */
const one = (want, options, why) => ({ judge: (text) => judgeNumber(text, want, options), why });

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


/** Lesson 2's answer "x, y, channel": the channel as r, g, b or a, or as its number 0 to 3. */
function judgeTexel(text) {
  const items = splitList(text.replace(/\bchannel\b/gi, " "));
  const want = [TEXEL.j, Math.floor(TEXEL.i / 4), TEXEL.i % 4];
  if (items.length !== 3) return { right: false, reason: `x, y and a channel are asked for, and “${text.trim()}” holds ${items.length} ${items.length === 1 ? "item" : "items"}` };
  const letter = "rgba".indexOf(items[2].toLowerCase());
  const wants = letter >= 0 ? want.slice(0, 2) : want;
  const r = judgeList(items.slice(0, wants.length).join("; "), wants, { names: ["x", "y", "channel"], whole: true });
  if (!r.right) return r;
  return letter < 0 || letter === want[2] ? { right: true } : { right: false, reason: `channel: ${items[2]} is not the channel` };
}

const count = (want, unit, why) => one(want, { unit, whole: true }, why);

export const EXERCISES = Object.fromEntries(Object.entries({
  fragments: count(ADD_SIDE * Math.ceil(ADD_SIDE / 4), "fragments", `${ADD_SIDE} columns × ${ADD_SIDE / 4} texel rows: one fragment per output texel.`),
  texel: {
    judge: judgeTexel,
    why: `x is the column (${TEXEL.j}), y = ⌊${TEXEL.i}/4⌋ = ${Math.floor(TEXEL.i / 4)}, channel ${TEXEL.i} mod 4 = ${TEXEL.i % 4} (${"rgba"[TEXEL.i % 4]}).`,
  },
  fetches: count((FETCH_N / 4) * 5, "fetches", `${FETCH_N / 4} steps of 4 inner indices, each 4 texels of A and 1 of B.`),
  bound: one(2 * (BOUND_K + 2) * 2 ** -24, { tol: 0.01 }, `2 · ${BOUND_K + 2} · 2⁻²⁴ ≈ ${(2 * (BOUND_K + 2) * 2 ** -24).toExponential(3)} of Σ|aᵢₚbₚⱼ|.`),
  targets: count(4 + TARGETS, "fetches", `4 texels of A, shared by all ${TARGETS} targets, plus one texel of B per target.`),
  workgroup: count((WORKGROUP.threads * WORKGROUP.perThread) ** 2, ["elements", "outputs"], `${WORKGROUP.threads}² threads × ${WORKGROUP.perThread}² outputs: a ${WORKGROUP.threads * WORKGROUP.perThread} × ${WORKGROUP.threads * WORKGROUP.perThread} block.`),
  passes: count(sumPasses(SUM_SIDE, SUM_SIDE), "passes", `${sumPasses(SUM_SIDE, SUM_SIDE) - 1} passes of 16 texels each bring ${SUM_SIDE} × ${SUM_SIDE / 4} texels to one, and one more adds its four channels.`),
  ulp: one(ulp32(ULP_AT), { tol: 1e-3 }, `${ULP_AT} lies in [2⁹, 2¹⁰), where float32's 24 bits are spaced 2^(9−23) = 2⁻¹⁴ apart.`),
  condition: one(condition(COND_N), { tol: 0.01 }, `λmax/λmin = (2 − 2cos(${COND_N}π/${COND_N + 1})) / (2 − 2cos(π/${COND_N + 1})) ≈ ${condition(COND_N).toFixed(2)}.`),
  lcp: {
    judge: (text) => judgeList(text, solveLcp2(LCP), { names: ["x₁", "x₂"], tol: 1e-6 }),
    why: `x = (${solveLcp2(LCP).join(", ")}): the second unknown is 0 and its w is positive.`,
  },
  blocks: count(tridiagonalBlocks(BLOCKS_N), "blocks", `the ${BLOCKS_N / 4} diagonal blocks and the ${tridiagonalBlocks(BLOCKS_N) - BLOCKS_N / 4} beside them that the off-diagonals cross.`),
  nmf: count(NMF.k * (NMF.pixels + NMF.images), ["numbers", "floats", "values", "elements"], `U is ${NMF.pixels} × ${NMF.k} and V is ${NMF.images} × ${NMF.k}: ${NMF.k} · (${NMF.pixels} + ${NMF.images}).`),
}).map(([name, e]) => [name, { ...e, check: (text) => e.judge(text).right }]));
