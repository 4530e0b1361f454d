// The accuracy table: every element-wise function and every operation of the library, run on
// the GPU and compared with JavaScript float64 (Math.*) over a stated input range.

import { mulberry32, randomMatrix, matmul64, errorStats, dotErrorBound } from "./reference/products.js";
import { referenceOf } from "./reference/expression.js";

const N = 4096; // inputs per function: a 64 x 64 matrix

/** Uniform values in [lo, hi). */
const uni = (lo, hi) => (next) => lo + (hi - lo) * next();
/** Values of magnitude 10^u, u uniform in [log10 lo, log10 hi]; random sign if `signed`. */
const mag = (lo, hi, signed = false) => (next) => {
  const v = 10 ** (Math.log10(lo) + (Math.log10(hi) - Math.log10(lo)) * next());
  return signed && next() < 0.5 ? -v : v;
};
const shift = (by, gen) => (next) => by + gen(next);
const neg = (gen) => (next) => -gen(next);
/** Half the inputs from each generator: a range in full, and magnitudes spread over decades. */
const mix = (...gens) => (next) => gens[Math.floor(next() * gens.length)](next);

/** [function, sampling of its input(s), how the range is stated on the page]. */
export const FUNCTIONS = [
  ["neg", mix(uni(-100, 100), mag(1e-30, 1e30, true)), "±[1e-30, 1e30]"],
  ["abs", mix(uni(-100, 100), mag(1e-30, 1e30, true)), "±[1e-30, 1e30]"],
  ["inv", mag(1e-30, 1e30, true), "±[1e-30, 1e30]"],
  ["sqrt", mag(1e-30, 1e30), "[1e-30, 1e30]"],
  ["invsqrt", mag(1e-30, 1e30), "[1e-30, 1e30]"],
  ["cbrt", mag(1e-30, 1e30, true), "±[1e-30, 1e30]"],
  ["invcbrt", mag(1e-30, 1e30, true), "±[1e-30, 1e30]"],
  ["exp", mix(uni(-87.3, 88.7), mag(1e-12, 88.7, true)), "[-87.3, 88.7] (all its normal results), every decade of |x| from 1e-12"],
  ["ln", mix(mag(1e-30, 1e30), uni(0.5, 2)), "[1e-30, 1e30]"],
  ["ln_builtin", mix(mag(1e-30, 1e30), uni(0.5, 2)), "[1e-30, 1e30]"],
  ["log10", mix(mag(1e-30, 1e30), uni(0.5, 2)), "[1e-30, 1e30]"],
  ["sin", mix(uni(-10, 10), mag(1e-6, 3e38, true)), "±[1e-6, 3e38], every decade"],
  ["sin_builtin", mix(uni(-10, 10), mag(1e-6, 3e38, true)), "±[1e-6, 3e38], every decade"],
  ["cos", mix(uni(-10, 10), mag(1e-6, 3e38, true)), "±[1e-6, 3e38], every decade"],
  ["cos_builtin", mix(uni(-10, 10), mag(1e-6, 3e38, true)), "±[1e-6, 3e38], every decade"],
  ["tan", mix(uni(-1.5, 1.5), mag(1e-6, 3e38, true)), "±[1e-6, 3e38], every decade"],
  ["tan_builtin", mix(uni(-1.5, 1.5), mag(1e-6, 3e38, true)), "±[1e-6, 3e38], every decade"],
  ["asin", mix(uni(-1, 1), mag(1e-6, 1, true)), "[-1, 1]"],
  ["acos", mix(uni(-1, 1), shift(1, neg(mag(1e-7, 1)))), "[-1, 1], many near 1"],
  ["acos_builtin", mix(uni(-1, 1), shift(1, neg(mag(1e-7, 1)))), "[-1, 1], many near 1"],
  ["atan", mag(1e-6, 1e6, true), "±[1e-6, 1e6]"],
  ["cosh", mix(uni(-89.4, 89.4), mag(1e-12, 89.4, true)), "±[1e-12, 89.4] (up to overflow), every decade"],
  ["sinh", mix(uni(-89.4, 89.4), mag(1e-12, 89.4, true)), "±[1e-12, 89.4] (up to overflow), every decade"],
  ["sinh_builtin", mix(uni(-89.4, 89.4), mag(1e-12, 89.4, true)), "±[1e-12, 89.4] (up to overflow), every decade"],
  ["tanh", mix(uni(-20, 20), mag(1e-12, 1e6, true)), "±[1e-12, 1e6], every decade"],
  ["tanh_builtin", mix(uni(-20, 20), mag(1e-12, 1e6, true)), "±[1e-12, 1e6], every decade"],
  ["acosh", shift(1, mag(1e-6, 1e6)), "1 + [1e-6, 1e6]"],
  ["acosh_builtin", shift(1, mag(1e-6, 1e6)), "1 + [1e-6, 1e6]"],
  ["asinh", mag(1e-6, 1e6, true), "±[1e-6, 1e6]"],
  ["asinh_builtin", mag(1e-6, 1e6, true), "±[1e-6, 1e6]"],
  ["atanh", mix(uni(-0.999, 0.999), mag(1e-6, 0.5, true)), "(-1, 1), many near 0"],
  ["atanh_builtin", mix(uni(-0.999, 0.999), mag(1e-6, 0.5, true)), "(-1, 1), many near 0"],
];

/** Two-argument functions: [expression, sampling of a, of b, range]. */
export const FUNCTIONS2 = [
  ["div(a, b)", uni(-1e3, 1e3), mag(1e-3, 1e3, true), "a in [-1e3, 1e3], |b| in [1e-3, 1e3]"],
  ["pow(a, b)", mag(1e-6, 1e6), uni(-6, 6), "a in [1e-6, 1e6], b in [-6, 6]"],
  ["pow_builtin(a, b)", mag(1e-6, 1e6), uni(-6, 6), "a in [1e-6, 1e6], b in [-6, 6]"],
  ["pow(a, b)", uni(0.5, 2), mag(1, 120, true), "a in [0.5, 2], |b| in [1, 120]: |b ln a| up to 83"],
  ["pow_builtin(a, b)", uni(0.5, 2), mag(1, 120, true), "a in [0.5, 2], |b| in [1, 120]: |b ln a| up to 83"],
  ["pow(a, b)", neg(mag(0.1, 10)), (next) => Math.floor(11 * next()) - 5, "a in -[0.1, 10], whole b in [-5, 5]"],
  ["pow_builtin(a, b)", neg(mag(0.1, 10)), (next) => Math.floor(11 * next()) - 5, "a in -[0.1, 10], whole b in [-5, 5]"],
  ["atan2(a, b)", uni(-1, 1), uni(-1, 1), "[-1, 1]²"],
];

const SPECIAL = [NaN, Infinity, -Infinity, 0, -0, -1];

/** Flag thresholds: more ULPs than this, or any special-value mismatch, is flagged. */
export const ULP_FLAG = 8;

function sample(gen, seed, n = N) {
  const next = mulberry32(seed);
  return Float32Array.from({ length: n }, () => gen(next));
}

/** Runs `expr` on the GPU over `inputs` (Float32Arrays of one length), returns its values. */
async function gpuValues(gpu, expr, inputs) {
  const mats = inputs.map((d) => gpu.upload(d, d.length, 1));
  const out = gpu.map(expr, mats);
  const values = await out.read();
  [...mats, out].forEach((m) => m.free());
  return values;
}

/**
 * One row of the table for an element-wise expression. `scale(...x)`, where given, is the
 * magnitude of the terms at one element: errors are then counted in ULPs of that magnitude, as
 * cancellation in a sum is not the GPU's doing.
 */
async function measure(gpu, texla, expr, inputs, range, scale) {
  const js = referenceOf(texla, expr);
  const got = await gpuValues(gpu, expr, inputs);
  const exact = Float64Array.from(got, (_, i) => js(...inputs.map((d) => d[i])));
  const s = errorStats(got, exact, scale && Float64Array.from(got, (_, i) => scale(...inputs.map((d) => d[i]))));
  const worstInputs = s.worst >= 0 ? inputs.map((d) => d[s.worst]) : [];
  // Special values, for functions of one argument.
  const special = [];
  if (inputs.length === 1) {
    const sv = Float32Array.from(SPECIAL);
    const g = await gpuValues(gpu, expr, [sv]);
    const st = errorStats(g, Float64Array.from(SPECIAL, (x) => js(x)));
    for (const i of st.mismatches) special.push(`${expr.replace(/\(a.*/, "")}(${SPECIAL[i]}) = ${g[i]}, IEEE ${js(SPECIAL[i])}`);
  }
  for (const i of s.mismatches.slice(0, 2)) special.push(`at ${inputs.map((d) => d[i]).join(", ")}: GPU ${got[i]}, JS ${exact[i]}`);
  return {
    expr,
    range,
    maxAbs: s.maxAbs,
    maxRel: s.maxRel,
    maxUlp: s.maxUlp,
    worstAt: worstInputs,
    worstGpu: got[s.worst],
    worstJs: exact[s.worst],
    special,
    flagged: s.maxUlp > ULP_FLAG || special.length > 0,
  };
}

/** Rows for operations that are not element-wise: products and reductions, against the bound. */
async function measureOperations(gpu) {
  const next = mulberry32(99);
  const [m, k, n] = [37, 61, 23];
  const a = randomMatrix(next, m * k);
  const b = randomMatrix(next, k * n);
  const x = randomMatrix(next, k);
  const transpose = (d, r, c) => Float32Array.from({ length: r * c }, (_, i) => d[(i % r) * c + Math.floor(i / r)]);
  const ga = gpu.upload(a, m, k);
  const gb = gpu.upload(b, k, n);
  const gat = gpu.upload(transpose(a, m, k), k, m);
  const gbt = gpu.upload(transpose(b, k, n), n, k);
  const gx = gpu.upload(x, k, 1);
  const ab = matmul64(a, b, m, k, n);
  const ax = matmul64(a, x, m, k, 1);
  const rows = [];
  const product = async (name, mat, ref, kk) => {
    const got = await mat.read();
    mat.free();
    const s = errorStats(got, ref.c);
    let worstRatio = 0;
    ref.c.forEach((e, i) => (worstRatio = Math.max(worstRatio, Math.abs(got[i] - e) / dotErrorBound(kk, ref.s[i]))));
    rows.push({ expr: name, range: "entries in [-1, 1)", maxAbs: s.maxAbs, maxRel: s.maxRel, maxUlp: s.maxUlp, boundRatio: worstRatio, special: [], flagged: !(worstRatio <= 1) });
  };
  await product(`A·B (${m}×${k} · ${k}×${n})`, gpu.matmul(ga, gb), ab, k);
  await product("matmul transposeA (Aᵀ stored, B)", gpu.matmul(gat, gb, { transposeA: true }), ab, k);
  await product("matmul transposeB (A, Bᵀ stored)", gpu.matmul(ga, gbt, { transposeB: true }), ab, k);
  await product(`mulVec blocked (${m}×${k})`, gpu.mulVec(ga, gx, { kernel: "blocked" }), ax, k);
  await product("mulVec naive", gpu.mulVec(ga, gx, { kernel: "naive" }), ax, k);
  const t = gpu.transpose(ga);
  const tv = await t.read();
  t.free();
  const exactT = transpose(a, m, k);
  rows.push({ expr: "transpose", range: "exact copy expected", maxAbs: 0, maxRel: 0, maxUlp: 0, special: [], flagged: !tv.every((v, i) => v === exactT[i]) });
  const dotExact = a.reduce((s, v, i) => s + v * a[i], 0);
  const absSum = dotExact;
  const d = await gpu.normSquared(ga);
  rows.push({ expr: `normSquared (${m * k} elements)`, range: "entries in [-1, 1)", maxAbs: Math.abs(d - dotExact), maxRel: Math.abs(d - dotExact) / dotExact, maxUlp: Math.abs(d - dotExact) / (2 ** -23 * dotExact), boundRatio: Math.abs(d - dotExact) / dotErrorBound(m * k, absSum), special: [], flagged: Math.abs(d - dotExact) > dotErrorBound(m * k, absSum) });
  [ga, gb, gat, gbt, gx].forEach((mm) => mm.free());
  return rows;
}

/** The whole table: element-wise operations, functions, then products and reductions. */
export async function measureAccuracy(gpu, texla, progress = () => {}) {
  const rows = [];
  let seed = 1;
  const elementwise = [
    ["a + b", [uni(-1e3, 1e3), uni(-1e3, 1e3)], "[-1e3, 1e3]²", (a, b) => Math.abs(a) + Math.abs(b)],
    ["a - b", [uni(-1e3, 1e3), uni(-1e3, 1e3)], "[-1e3, 1e3]²", (a, b) => Math.abs(a) + Math.abs(b)],
    ["a * b", [mag(1e-15, 1e15, true), mag(1e-15, 1e15, true)], "±[1e-15, 1e15]²"],
    ["a / b", [mag(1e-15, 1e15, true), mag(1e-15, 1e15, true)], "±[1e-15, 1e15]²"],
    ["a * 3.7", [mag(1e-30, 1e30, true)], "±[1e-30, 1e30]"],
    ["max(a, 0.5)", [uni(-2, 2)], "[-2, 2]"],
    ["a + b * -2.5", [uni(-1e3, 1e3), uni(-1e3, 1e3)], "[-1e3, 1e3]²", (a, b) => Math.abs(a) + 2.5 * Math.abs(b)],
    ["a + (b + c) * d", [uni(-1, 1), uni(-1, 1), uni(-1, 1), uni(-1, 1)], "[-1, 1]⁴ (madad)", (a, b, c, d) => Math.abs(a) + (Math.abs(b) + Math.abs(c)) * Math.abs(d)],
    ["a * cos(b) / sqrt(c)", [uni(-2, 2), uni(-3, 3), uni(0.1, 2)], "a in [-2, 2], b in [-3, 3], c in [0.1, 2]", (a, b, c) => Math.abs(a / Math.sqrt(c))],
  ];
  for (const [expr, gens, range, scale] of elementwise) {
    progress(expr);
    const inputs = gens.map((g) => sample(g, seed++));
    rows.push({ group: "operations", ...(await measure(gpu, texla, expr, inputs, range, scale)) });
  }
  for (const [name, gen, range] of FUNCTIONS) {
    progress(name);
    rows.push({ group: "functions", ...(await measure(gpu, texla, `${name}(a)`, [sample(gen, seed++)], range)) });
  }
  for (const [expr, ga, gb, range] of FUNCTIONS2) {
    progress(expr);
    rows.push({ group: "functions", ...(await measure(gpu, texla, expr, [sample(ga, seed++), sample(gb, seed++)], range)) });
  }
  progress("sincos");
  {
    const x = sample(mix(uni(-10, 10), mag(1e-6, 1e4, true)), seed++);
    const a = gpu.upload(x, x.length, 1);
    const [sm, cm] = gpu.sincos(a);
    for (const [name, m, f] of [["sincos → sin", sm, Math.sin], ["sincos → cos", cm, Math.cos]]) {
      const got = await m.read();
      m.free();
      const s = errorStats(got, Float64Array.from(x, f));
      rows.push({ group: "functions", expr: name, range: "±[1e-6, 1e4], one pass for both", maxAbs: s.maxAbs, maxRel: s.maxRel, maxUlp: s.maxUlp, worstAt: [x[s.worst]], worstGpu: got[s.worst], worstJs: f(x[s.worst]), special: [], flagged: s.maxUlp > ULP_FLAG });
    }
    a.free();
  }
  progress("products and reductions");
  for (const r of await measureOperations(gpu)) rows.push({ group: "products", ...r });
  return rows;
}
