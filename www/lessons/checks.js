// Each lesson's check: a small computation on the user's GPU, compared with JavaScript float64
// under a stated tolerance. A check resolves to { lines (what was done, the tolerance, the
// result: the last line says whether it held), within, timing: [[label, ms]], shaders
// (gpu.lastShaders() right after the lesson's kernel ran, where it ran last; else the lesson
// shows its kernel from kernels.js), title (the kernel's, where it differs from kernels.js's),
// kernelRan (false where this backend cannot run the lesson's kernel) }. Lessons 9 to 12 are in
// checks-apps.js.

import { mulberry32, randomMatrix, matmul64, compare, ulp32, errorStats } from "../reference/products.js";
import { referenceOf } from "../reference/expression.js";
import { add64, sum64 } from "../reference/lessons.js";
import { heatmap } from "../products.js";
import { APP_CHECKS } from "./checks-apps.js";
import { drawReduction } from "./pictures.js";
import { FUNCTIONS_EXPR } from "./kernels.js";
import { sumPasses } from "./exercises.js";

const now = () => performance.now();
const e2 = (v) => (Number.isFinite(v) ? v.toExponential(2) : String(v));
const U = 2 ** -24;

/** Runs `make()` (which returns a matrix) once to warm up (building the kernel's pipeline), then
 * again after `gpu.finish()`, timed to the next finish; resolves to { out, ms, shaders } (the
 * sources of the last kernel it ran). */
export async function timed(gpu, make) {
  make().free();
  await gpu.finish();
  const t0 = now();
  const out = make();
  const shaders = gpu.lastShaders();
  await gpu.finish();
  const ms = now() - t0;
  return { out, ms, shaders };
}

/** Uploads random matrices of the given shapes from `seed`; resolves to { data, mats, ms }. */
export async function uploads(gpu, seed, shapes, lo = -1, hi = 1) {
  const next = mulberry32(seed);
  const data = shapes.map(([r, c]) => randomMatrix(next, r * c, lo, hi));
  await gpu.finish();
  const t0 = now();
  const mats = data.map((d, i) => gpu.upload(d, ...shapes[i]));
  await gpu.finish();
  return { data, mats, ms: now() - t0 };
}

/** Reads `m` back (and frees it); resolves to { values, ms }. */
export async function readBack(m) {
  const t0 = now();
  const values = await m.read();
  m.free();
  return { values, ms: now() - t0 };
}

/** A·B on `kernel` against float64, element by element within 2(k+2)u Σ|a b|. */
async function productCheck(gpu, kernel, [m, k, n], seed) {
  const { data: [a, b], mats: [A, B], ms: up } = await uploads(gpu, seed, [[m, k], [k, n]]);
  let run;
  try {
    run = await timed(gpu, () => gpu.matmul(A, B, { kernel }));
  } finally {
    [A, B].forEach((x) => x.free());
  }
  const { values, ms: back } = await readBack(run.out);
  const t0 = now();
  const ref = matmul64(a, b, m, k, n);
  const js = now() - t0;
  const cmp = compare(values, ref.c, ref.s, k);
  return { values, ref, cmp, up, ms: run.ms, back, js, shaders: run.shaders, within: cmp.worstRatio <= 1 };
}

const productLines = (what, r, [m, k, n]) => [
  `${what}: C = A·B with A ${m} × ${k} and B ${k} × ${n}, entries uniform in [−1, 1), against the same product in float64.`,
  `Tolerance: every element within 2(k + 2)·2⁻²⁴·Σₚ|aᵢₚbₚⱼ| (k = ${k}), the float32 bound of a length-k dot product.`,
  r.within ? `All ${m * n} elements are within their bounds: the worst at ${r.cmp.worstRatio.toFixed(3)} of its bound (max abs error ${e2(r.cmp.maxAbs)}).`
    : `Element ${r.cmp.worstIndex} is ${r.cmp.worstRatio.toFixed(2)} times its bound: this GPU's result is wrong.`,
];

const productTiming = (r, gflopsOf) => [
  ["upload A and B", r.up],
  [`GPU compute (${(gflopsOf / (r.ms * 1e6)).toFixed(3)} GFLOPS)`, r.ms],
  ["read C back", r.back],
  ["JavaScript float64, same product", r.js],
];

/** Largest error in ULPs of the float32 nearest the exact value. */
function maxUlp(values, exact) {
  let worst = 0;
  values.forEach((v, i) => (worst = Math.max(worst, Math.abs(v - exact[i]) / ulp32(exact[i]))));
  return worst;
}

export const CHECKS = {
  async gpu(gpu) {
    const n = 64;
    const { data: [a, b], mats: [A, B], ms: up } = await uploads(gpu, 11, [[n, n], [n, n]]);
    const run = await timed(gpu, () => gpu.add(A, B));
    [A, B].forEach((x) => x.free());
    const { values, ms: back } = await readBack(run.out);
    const t0 = now();
    const exact = add64(a, b);
    const js = now() - t0;
    const worst = maxUlp(values, exact);
    const within = worst <= 0.5;
    return {
      within,
      lines: [`C = A + B on your GPU (${gpu.backend}), A and B ${n} × ${n}: ${n * n / 4} fragments, one per output texel, each adding 4 elements.`,
        "Tolerance: half an ULP: each element must be the float32 nearest the exact sum (IEEE 754 rounding).",
        within ? `Every element is the correctly rounded sum (worst ${worst.toFixed(2)} ULP).` : `An element is ${worst.toFixed(2)} ULP from the exact sum: this GPU does not round as IEEE 754 does.`],
      timing: [["upload A and B", up], ["GPU add (one pass)", run.ms], ["read C back", back], ["JavaScript float64 add", js]],
      shaders: run.shaders,
    };
  },

  async texture(gpu) {
    const [m, n] = [13, 7];
    const { data: [a], mats: [A], ms: up } = await uploads(gpu, 5, [[m, n]]);
    const run = await timed(gpu, () => gpu.copy(A));
    A.free();
    const { values, ms: back } = await readBack(run.out);
    const same = values.every((v, i) => Object.is(v, Math.fround(a[i])));
    return {
      within: same,
      lines: [`A ${m} × ${n} matrix goes up as a texture ${n} texels wide and ⌈${m}/4⌉ = ${Math.ceil(m / 4)} high (${Math.ceil(m / 4) * 4 - m} padding rows), is copied texel by texel by a kernel, and comes back.`,
        "Tolerance: none: every element must come back bit for bit (float32 in, float32 out).",
        same ? `All ${m * n} elements came back exactly.` : "Some elements changed on the way: this texture format is not float32."],
      timing: [["upload", up], ["GPU copy (one pass)", run.ms], ["read back", back]],
      shaders: run.shaders,
    };
  },

  async shader(gpu) {
    const shape = [13, 29, 7];
    const r = await productCheck(gpu, "teaching", shape, 2);
    return { within: r.within, lines: productLines("The teaching kernel (one output texel per fragment)", r, shape), timing: productTiming(r, 2 * 13 * 29 * 7), shaders: r.shaders };
  },

  async float(gpu, _texla, section) {
    const shape = [64, 64, 64];
    const r = await productCheck(gpu, "teaching", shape, 1);
    heatmap(section.querySelector("#float-heatmap"), r.values, r.ref.c, r.ref.s, 64, 64, 64);
    section.querySelector("#float-heatmap").dataset.drawn = "true";
    const ulps = maxUlp(r.values, r.ref.c);
    const lines = productLines("A 64 × 64 product in float32", r, shape);
    lines.splice(2, 0, `Measured in ULPs of the float32 nearest each exact element: worst ${ulps.toFixed(1)} ULP (the bound allows far more: errors of a sum of 64 products add up, and cancellation makes small results).`);
    return { within: r.within, lines, timing: productTiming(r, 2 * 64 ** 3), shaders: r.shaders };
  },

  async targets(gpu) {
    const shape = [45, 37, 50];
    const r = await productCheck(gpu, "fast", shape, 3);
    const { mats: [A, B] } = await uploads(gpu, 3, [[45, 37], [37, 50]]);
    const teaching = await timed(gpu, () => gpu.matmul(A, B, { kernel: "teaching" }));
    teaching.out.free();
    [A, B].forEach((x) => x.free());
    const timing = productTiming(r, 2 * 45 * 37 * 50);
    timing.splice(2, 0, ["the teaching kernel, same product (for comparison)", teaching.ms]);
    return { within: r.within, lines: productLines("The fast kernel (one output texel per render target)", r, shape), timing, shaders: r.shaders };
  },

  async compute(gpu) {
    const shape = [130, 70, 129];
    if (gpu.backend !== "webgpu") {
      const r = await productCheck(gpu, "fast", shape, 4);
      const lines = productLines("WebGL2 has no compute shaders, so this ran the fast fragment kernel on the same product", r, shape);
      return { within: r.within, lines, timing: productTiming(r, 2 * 130 * 70 * 129), kernelRan: false };
    }
    const r = await productCheck(gpu, "compute", shape, 4);
    return { within: r.within, lines: productLines("The compute path (128 × 128 blocks of 16 × 16 threads, 2 × 2 blocks here)", r, shape), timing: productTiming(r, 2 * 130 * 70 * 129), shaders: r.shaders };
  },

  async reduce(gpu, _texla, section) {
    const [m, n] = [100, 100];
    const { data: [a, b], mats: [A, B], ms: up } = await uploads(gpu, 9, [[m, n], [m, n]]);
    const before = gpu.counts().passes;
    await gpu.finish();
    const t0 = now();
    const sum = await gpu.sum(A);
    const ms = now() - t0;
    const passes = gpu.counts().passes - before;
    const t1 = now();
    const dot = await gpu.dot(A, B);
    const dotMs = now() - t1;
    [A, B].forEach((x) => x.free());
    const t2 = now();
    const { sum: s64, abs } = sum64(a);
    const { sum: d64, abs: dabs } = sum64(a, b);
    const js = now() - t2;
    // The 16-fold fragment passes the lesson draws, or (WebGPU on a hardware adapter) 4096-fold
    // compute passes: 16 texels a thread, then a tree of 8 halvings of 256 threads' sums.
    const fragment = passes === sumPasses(m, n);
    const perPass = fragment ? 16 : 24;
    const depth = perPass * (passes - 1) + 4;
    const [sumBound, dotBound] = [depth * U * abs, (depth + 1) * U * dabs];
    const within = Math.abs(sum - s64) <= sumBound && Math.abs(dot - d64) <= dotBound;
    drawReduction(section.querySelector("[data-part=picture] .picture"), m, n);
    return {
      within,
      lines: [`Σ aᵢⱼ and Σ aᵢⱼbᵢⱼ of two ${m} × ${n} matrices (${n} × ${m / 4} texels) on the GPU: ${passes} passes (${passes - 1} ${fragment ? "of 16 texels into one" : "compute passes of 64 × 64 texels into one, this GPU's way"}, then one adding the four channels); only the scalar comes back.`,
        `Tolerance: (${perPass}·${passes - 1} + 4)·2⁻²⁴·Σ|aᵢⱼ| for the sum (each element meets at most that many float32 additions), one more 2⁻²⁴ for the products of the dot.`,
        within ? `Sum ${sum} against ${s64.toPrecision(9)} (error ${e2(Math.abs(sum - s64))}, bound ${e2(sumBound)}); dot ${dot} against ${d64.toPrecision(9)} (error ${e2(Math.abs(dot - d64))}, bound ${e2(dotBound)}).`
          : `Outside the bound: sum ${sum} against ${s64}, dot ${dot} against ${d64}.`],
      timing: [["upload", up], [`gpu.sum, ${passes} passes and one scalar read back`, ms], ["gpu.dot", dotMs], ["JavaScript float64, both", js]],
      passes,
    };
  },

  async functions(gpu, texla) {
    const expr = FUNCTIONS_EXPR;
    const n = 64;
    const { data, mats, ms: up } = await uploads(gpu, 8, [[n, n], [n, n], [n, n]], 0.1, 2);
    const run = await timed(gpu, () => gpu.map(expr, mats));
    const { values, ms: back } = await readBack(run.out);
    const f = referenceOf(texla, expr);
    const t0 = now();
    const exact = Float64Array.from(data[0], (_, i) => f(data[0][i], data[1][i], data[2][i]));
    const js = now() - t0;
    const stats = errorStats(values, exact);
    mats.forEach((x) => x.free());
    // The GPU's own sin far from 0, beside texla's, on the same inputs.
    const { data: [big], mats: [X] } = await uploads(gpu, 12, [[n, n]], 1000, 100000);
    const sin64 = Float64Array.from(big, Math.sin);
    const ours = await readBack(gpu.map("sin(a)", [X]));
    const builtin = await readBack(gpu.map("sin_builtin(a)", [X]));
    X.free();
    const absErr = (v) => v.reduce((m, x, i) => Math.max(m, Math.abs(x - sin64[i])), 0);
    const within = stats.maxUlp <= 8 && stats.mismatches.length === 0;
    return {
      within,
      lines: [`${expr} over three ${n} × ${n} matrices with entries in [0.1, 2): ONE fragment-shader pass, against the same expression in float64 Math.*.`,
        `sin of the same ${n * n} float32 inputs in [1000, 100000) on the GPU, against Math.sin of those exact values: texla's sin is off by at most ${e2(absErr(ours.values))}, the GPU's built-in sin by ${e2(absErr(builtin.values))} (one ULP of a result just below 1 is ${e2(ulp32(0.9))}).`,
        "Tolerance: 8 ULP of each element (the accuracy table's flag), and no NaN or infinity where float64 has none.",
        within ? `Worst element ${stats.maxUlp.toFixed(2)} ULP from float64.` : `Worst element ${stats.maxUlp.toFixed(2)} ULP from float64, ${stats.mismatches.length} special-value mismatches.`],
      timing: [["upload a, b, c", up], ["GPU, one fused pass", run.ms], ["read back", back], ["JavaScript float64", js]],
      shaders: run.shaders,
    };
  },

  ...APP_CHECKS,
};
