// The seeds' figures as page benchmarks: the ShaderX2 article's Figure 3 (each operation at n x n, timed
// from the call to the end of the read-back, GPU against JavaScript float64) and the thesis's
// Fig. 8 (x*z by z*y over the given sizes, on the fragment and compute paths, against
// JavaScript).

import { best, productMatrices } from "./bench.js";
import { matmulOnly64, mulberry32, randomMatrix } from "../reference/products.js";
import { cg64, lcp64 } from "../reference/solvers.js";

/** Milliseconds from `run()` (which returns a GpuMatrix) to the end of its read-back. */
async function toReadBack(run) {
  let out = null;
  const ms = await best(1, async () => {
    out?.free();
    out = await run();
    await out.read();
  });
  out.free();
  return ms;
}

/** Milliseconds of synchronous `run`, once. */
function timed(run) {
  const t0 = performance.now();
  run();
  return performance.now() - t0;
}

/**
 * The ShaderX2 article's Figure 3 at order n: copy, add, multiply, transposed multiply, CG (random SPD, to
 * 1e-5 relative residual) and projected Jacobi (an LCP, 2n iterations), data on the GPU before
 * the call; JavaScript float64 on the same data.
 */
export async function runFigure3(gpu, texla, n, progress = () => {}) {
  const { a, b } = productMatrices(n);
  const [A, B] = [gpu.upload(a, n, n), gpu.upload(b, n, n)];
  const [a64, b64] = [Float64Array.from(a), Float64Array.from(b)];
  const rows = [];
  const row = async (op, gpuRun, jsRun) => {
    progress(`${op}, n = ${n}`);
    rows.push({ op, n, gpuMs: await toReadBack(gpuRun), jsMs: timed(jsRun) });
  };
  try {
    await row("copy", () => gpu.copy(A), () => Float64Array.from(a64));
    await row("add", () => gpu.add(A, B), () => a64.map((x, i) => x + b64[i]));
    await row("multiply (matmul)", () => gpu.matmul(A, B), () => matmulOnly64(a, b, n, n, n));
    await row("transposed multiply (matmul transposeA)", () => gpu.matmul(A, B, { transposeA: true }), () => {
      const at = new Float32Array(n * n);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) at[j * n + i] = a[i * n + j];
      matmulOnly64(at, b, n, n, n);
    });
    for (const [op, kind, gpuSolve, jsSolve] of [
      ["CG", "spd", (M, v) => gpu.cg(M, v, { tol: 1e-5, maxIter: n }), (p) => cg64(Float64Array.from(p.a), Float64Array.from(p.b), n, 1e-5, n)],
      ["projected Jacobi", "lcp", (M, v) => gpu.lcpJacobi(M, v, { omega: -0.8, iterations: 2 * n, residual: false }), (p) => lcp64(Float64Array.from(p.a), Float64Array.from(p.b), n, -0.8, 2 * n, 2 * n)],
    ]) {
      const p = texla.Gpgpu.problem(kind, n, 1);
      const [M, v] = [gpu.upload(p.a, n, n), gpu.upload(p.b, n, 1)];
      try {
        await row(op, async () => (await gpuSolve(M, v)).x, () => jsSolve(p));
      } finally {
        M.free();
        v.free();
      }
    }
  } finally {
    A.free();
    B.free();
  }
  return rows;
}

/**
 * The thesis's Fig. 8: for every x, z, y in `sizes`, (x x z)(z x y) from the call to the end of
 * the read-back on the fragment path (matmul's kernel "fast") and, on WebGPU, the compute path, against
 * JavaScript float64; the thesis quotes GPU/CPU extremes of 6.8x, 0.08x and 1.49x.
 */
export async function runFigure8(gpu, sizes, progress = () => {}) {
  const rows = [];
  for (const x of sizes) {
    for (const z of sizes) {
      for (const y of sizes) {
        progress(`${x}x${z} by ${z}x${y}`);
        const next = mulberry32(x * 7 + z * 13 + y);
        const [a, b] = [randomMatrix(next, x * z), randomMatrix(next, z * y)];
        const [A, B] = [gpu.upload(a, x, z), gpu.upload(b, z, y)];
        const row = { x, z, y, jsMs: timed(() => matmulOnly64(a, b, x, z, y)) };
        row.fragmentMs = await toReadBack(() => gpu.matmul(A, B, { kernel: "fast" }));
        row.computeMs = gpu.backend === "webgpu" ? await toReadBack(() => gpu.matmul(A, B, { kernel: "compute" })) : null;
        A.free();
        B.free();
        rows.push(row);
      }
    }
  }
  return rows;
}
