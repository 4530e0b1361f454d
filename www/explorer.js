// The operation explorer: pick an operation and shapes, see the inputs, the output, the shader
// that ran, the GPU-versus-float64 comparison and the timing.

import { mulberry32, randomMatrix, matmul64, errorStats } from "./reference/products.js";
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
 * result into `out`. Returns the error statistics.
 */
export async function explore(gpu, texla, out, { name, m, k, n, expr, lo, hi, seed }) {
  const op = OPERATIONS[name];
  const shapes = op.shapes(m, k, n, expr);
  const next = mulberry32(seed);
  const data = shapes.map(([r, c]) => randomMatrix(next, r * c, lo, hi));
  const mats = data.map((d, i) => gpu.upload(d, ...shapes[i]));
  await gpu.finish();
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
  return stats;
}
