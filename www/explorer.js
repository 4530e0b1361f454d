// The operation explorer: pick an operation and shapes, see the inputs, the output, the shader
// that ran, the GPU-versus-float64 comparison and the timing.

import { mulberry32, randomMatrix, matmul64, errorStats, dotErrorBound as dotBound } from "./reference/products.js";
import { ulpBounds as ulpBoundsOf } from "./kernel-lab.js";
import { referenceOf } from "./reference/expression.js";

const transpose = (d, r, c) => Float64Array.from({ length: r * c }, (_, i) => d[(i % r) * c + Math.floor(i / r)]);

/**
 * Each operation: the input shapes for (m, k, n), the GPU call, and the float64 reference.
 * Inputs are named A, B, ... in the order of `shapes`.
 */
export const OPERATIONS = {
  expression: {
    label: "element-wise expression (one fused pass)",
    shapes: (m, k, n, expr) => Array.from({ length: Math.max(1, inputCount(expr)) }, () => [m, n]),
    gpu: (gpu, mats, expr) => gpu.map(expr, mats),
    reference: (texla, data, _shapes, expr) => {
      const f = referenceOf(texla, expr);
      return Float64Array.from(data[0], (_, i) => f(...data.map((d) => d[i])));
    },
  },
  matmul: {
    label: "A·B (m×k times k×n)",
    shapes: (m, k, n) => [[m, k], [k, n]],
    gpu: (gpu, [a, b]) => gpu.matmul(a, b),
    reference: (_t, [a, b], [[m, k], [, n]]) => matmul64(a, b, m, k, n).c,
  },
  "matmul-fast": {
    label: "A·B, fast fragment kernel (one output texel per render target, up to 8 per fragment)",
    shapes: (m, k, n) => [[m, k], [k, n]],
    gpu: (gpu, [a, b]) => gpu.matmul(a, b, { kernel: "fast" }),
    reference: (_t, [a, b], [[m, k], [, n]]) => matmul64(a, b, m, k, n).c,
  },
  "matmul-compute": {
    label: "A·B on the compute path (WebGPU only: workgroup tiling, 8×8 outputs per thread)",
    shapes: (m, k, n) => [[m, k], [k, n]],
    gpu: (gpu, [a, b]) => gpu.matmul(a, b, { kernel: "compute" }),
    reference: (_t, [a, b], [[m, k], [, n]]) => matmul64(a, b, m, k, n).c,
  },
  "matmul-transposeA": {
    label: "Aᵀ·B without building Aᵀ (A is k×m)",
    shapes: (m, k, n) => [[k, m], [k, n]],
    gpu: (gpu, [a, b]) => gpu.matmul(a, b, { transposeA: true }),
    reference: (_t, [a, b], [[k, m], [, n]]) => matmul64(transpose(a, k, m), b, m, k, n).c,
  },
  "matmul-transposeB": {
    label: "A·Bᵀ without building Bᵀ (B is n×k)",
    shapes: (m, k, n) => [[m, k], [n, k]],
    gpu: (gpu, [a, b]) => gpu.matmul(a, b, { transposeB: true }),
    reference: (_t, [a, b], [[m, k], [n]]) => matmul64(a, transpose(b, n, k), m, k, n).c,
  },
  transpose: {
    label: "Aᵀ (A is m×n)",
    shapes: (m, k, n) => [[m, n]],
    gpu: (gpu, [a]) => gpu.transpose(a),
    reference: (_t, [a], [[m, n]]) => transpose(a, m, n),
  },
  mulVec: {
    label: "A·x blocked: partial sums, then a reduction (A is m×k)",
    shapes: (m, k) => [[m, k], [k, 1]],
    gpu: (gpu, [a, x]) => gpu.mulVec(a, x),
    reference: (_t, [a, x], [[m, k]]) => matmul64(a, x, m, k, 1).c,
  },
  "mulVec-compute": {
    label: "A·x on the compute path (WebGPU only: one dispatch, partial sums in workgroup memory)",
    shapes: (m, k) => [[m, k], [k, 1]],
    gpu: (gpu, [a, x]) => gpu.mulVec(a, x, { kernel: "compute" }),
    reference: (_t, [a, x], [[m, k]]) => matmul64(a, x, m, k, 1).c,
  },
  "mulVec-naive": {
    label: "A·x naive: one fragment per 4 rows (A is m×k)",
    shapes: (m, k) => [[m, k], [k, 1]],
    gpu: (gpu, [a, x]) => gpu.mulVec(a, x, { kernel: "naive" }),
    reference: (_t, [a, x], [[m, k]]) => matmul64(a, x, m, k, 1).c,
  },
  sincos: {
    label: "sincos(a): sin and cos in ONE pass (two render targets); shows sin",
    shapes: (m, k, n) => [[m, n]],
    gpu: (gpu, [a]) => {
      const [s, c] = gpu.sincos(a);
      c.free();
      return s;
    },
    reference: (_t, [a]) => Float64Array.from(a, Math.sin),
  },
  dot: {
    label: "dot(a, b) of two m×n matrices (vectors when n = 1)",
    shapes: (m, k, n) => [[m, n], [m, n]],
    gpu: (gpu, [a, b]) => gpu.dot(a, b),
    reference: (_t, [a, b]) => Float64Array.of(a.reduce((s, v, i) => s + v * b[i], 0)),
  },
  sum: {
    label: "sum of all elements of an m×n matrix",
    shapes: (m, k, n) => [[m, n]],
    gpu: (gpu, [a]) => gpu.sum(a),
    reference: (_t, [a]) => Float64Array.of(a.reduce((s, v) => s + v, 0)),
  },
};

function inputCount(expr) {
  const names = new Set((expr.toLowerCase().match(/\b[a-f]\b/g) ?? []));
  return names.size ? Math.max(...[...names].map((c) => c.charCodeAt(0) - 96)) : 0;
}

/** A small HTML table of the top-left corner of a row-major matrix. */
function preview(name, data, rows, cols) {
  const r = Math.min(rows, 6);
  const c = Math.min(cols, 6);
  let html = `<table class="numbers preview"><caption>${name} (${rows}×${cols}${rows > r || cols > c ? ", top-left corner" : ""})</caption>`;
  for (let i = 0; i < r; i++) {
    html += "<tr>";
    for (let j = 0; j < c; j++) html += `<td>${Number(data[i * cols + j]).toPrecision(5)}</td>`;
    html += "</tr>";
  }
  return `${html}</table>`;
}

/**
 * Runs operation `name` with shapes (m, k, n) on random inputs in [lo, hi) and renders the
 * result into `out`. Returns the error statistics, and what the kernel lab needs to run the
 * same problem again (see `explorerKernel`): the inputs, shapes, float64 result, the passes
 * the operation ran and the last pass's kernel.
 */
export async function explore(gpu, texla, out, { name, m, k, n, expr, lo, hi, seed }) {
  const op = OPERATIONS[name];
  const shapes = op.shapes(m, k, n, expr);
  const next = mulberry32(seed);
  const data = shapes.map(([r, c]) => randomMatrix(next, r * c, lo, hi));
  const mats = data.map((d, i) => gpu.upload(d, ...shapes[i]));
  await gpu.finish();
  const passes = gpu.counts().passes;
  const t0 = performance.now();
  let result;
  try {
    result = op.gpu(gpu, mats, expr);
    if (result instanceof Promise) result = await result;
    await gpu.finish();
  } finally {
    mats.forEach((x) => x.free());
  }
  const t1 = performance.now();
  const ran = { passes: gpu.counts().passes - passes, kernel: gpu.lastKernel() };
  let values;
  let outShape;
  if (typeof result === "number") {
    values = Float32Array.of(result);
    outShape = [1, 1];
  } else {
    values = await result.read();
    outShape = [result.rows, result.cols];
    result.free();
  }
  const t2 = performance.now();
  const shader = gpu.lastShader() ?? "";
  const exact = op.reference(texla, data, shapes, expr);
  const stats = errorStats(values, exact);
  const names = "ABCDEF";
  const [or, oc] = outShape;
  const worst = stats.worst;
  out.innerHTML = `
    <div class="summary" id="explorer-summary" data-max-ulp="${stats.maxUlp}" data-mismatches="${stats.mismatches.length}">
      <p>${op.label}: output ${or}×${oc}. Max absolute error ${stats.maxAbs.toPrecision(3)}, max relative error ${stats.maxRel.toPrecision(3)},
      max ${stats.maxUlp.toPrecision(3)} ULP${worst >= 0 ? ` (at element ${worst}: GPU ${values[worst]}, float64 ${exact[worst]})` : ""};
      ${stats.mismatches.length} special-value mismatches. GPU compute ${(t1 - t0).toFixed(2)} ms, read-back ${(t2 - t1).toFixed(2)} ms.</p>
    </div>
    <div class="result-grid">
      ${data.map((d, i) => preview(names[i], d, ...shapes[i])).join("")}
      ${preview("GPU result", values, or, oc)}
      ${preview("float64 reference", exact, or, oc)}
    </div>
    <details open><summary>The shader that ran (${gpu.backend === "webgpu" ? "WGSL" : "GLSL ES 3.00"}, last pass)</summary><pre id="explorer-shader" class="shader"></pre></details>`;
  out.querySelector("#explorer-shader").textContent = shader;
  return { stats, name, data, shapes, exact, outShape, expr, ...ran };
}

/**
 * What the kernel lab edits after an explorer run `r` (explore's result): the body of the one
 * pass the operation ran and the same problem, each element within the bound the lessons use (a
 * product's 2(k+2)·2⁻²⁴·Σ|a·b|, else the accuracy table's ULP flag); or why there is none.
 */
export function explorerKernel(texla, r, ulps) {
  const k = r.kernel;
  if (!k || r.passes !== 1 || k.outputs !== 1 || k.compute?.scratch || k.inputs !== r.data.length || k.rows !== r.outShape[0] || k.cols !== r.outShape[1]) {
    return { why: `${OPERATIONS[r.name].label} ran ${r.passes} passes${k?.outputs > 1 ? ` and its kernel writes ${k.outputs} render targets` : ""}: the kernel lab edits operations of one pass and one output (the expression, A·B, Aᵀ, Aᵀ·B, A·Bᵀ, the naive A·x). Pick one of them and run it.` };
  }
  const op = OPERATIONS[r.name];
  // A product's inner dimension: its bound needs Σ|a·b|, the product of the inputs' absolute values.
  const inner = { matmul: 1, matmulFast: 1, matmulCompute: 1, mulTr: 1, mulVec: 1, mulVecNaive: 1, mulVecCompute: 1 }[r.name] ? r.shapes[0][1] : r.name === "trMul" ? r.shapes[0][0] : 0;
  const exact = () => {
    if (!inner) return ulpBoundsOf(r.exact, ulps);
    const sums = op.reference(texla, r.data.map((d) => Float64Array.from(d, Math.abs)), r.shapes, r.expr);
    return { values: r.exact, bounds: Float64Array.from(sums, (s) => dotBound(inner, s)), bound: "the float32 error bound 2(k+2)·2⁻²⁴·Σ|a·b|" };
  };
  return {
    source: { wgsl: k.wgsl, glsl: k.glsl, compute: k.compute, params: k.params, note: [`The body of the kernel "${k.name}" that just ran ${op.label}, in the language your GPU runs. Edit it and run it on the same inputs: each element is checked against float64.`] },
    problem: () => ({
      inputs: r.data.map((d, i) => ({ data: d, rows: r.shapes[i][0], cols: r.shapes[i][1] })),
      rows: r.outShape[0],
      cols: r.outShape[1],
      what: `${op.label}, output ${r.outShape[0]} × ${r.outShape[1]}`,
      exact: async () => exact(),
    }),
  };
}
