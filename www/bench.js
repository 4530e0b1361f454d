// The benchmark: GFLOPS of squaring and multiplying n x n matrices, end-to-end (upload, compute,
// read-back) and resident (data stays on the GPU: 10 chained products, one read-back), beside
// JavaScript float64 in the same run. A product of n x n matrices counts 2 n^3 flops.

import { mulberry32, randomMatrix } from "./reference.js";
import { referenceTiming } from "./worker-client.js";

const CHAIN = 10;

/** Scales `a` (n x n) in place so that its infinity norm is 1: chained products stay finite. */
function normalise(a, n) {
  let norm = 0;
  for (let i = 0; i < n; i++) {
    let row = 0;
    for (let j = 0; j < n; j++) row += Math.abs(a[i * n + j]);
    norm = Math.max(norm, row);
  }
  for (let i = 0; i < a.length; i++) a[i] /= norm;
  return a;
}

/**
 * Milliseconds of `run` (an async function), best of `reps` after one warm-up run (which
 * compiles shaders and lets the JIT settle). If `run` resolves to a number, that number is the
 * time (for work timed elsewhere, as in the float64 worker).
 */
async function best(reps, run) {
  await run();
  let bestMs = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    const reported = await run();
    bestMs = Math.min(bestMs, typeof reported === "number" ? reported : performance.now() - t0);
  }
  return bestMs;
}

/**
 * Runs the benchmark on `gpu` for each n in `sizes`; calls `progress(text)` before each step and
 * returns one row per n: {n, squareE2E, squareResident, mulE2E, mulResident, js} in GFLOPS.
 */
export async function runBenchmark(gpu, sizes, progress = () => {}) {
  const rows = [];
  for (const n of sizes) {
    const next = mulberry32(n);
    const a = normalise(randomMatrix(next, n * n), n);
    const b = normalise(randomMatrix(next, n * n), n);
    const flops = 2 * n ** 3;
    const gflops = (count, ms) => (count * flops) / (ms * 1e6);
    const reps = n <= 256 ? 3 : 1;

    progress(`n = ${n}: squaring, end-to-end`);
    const squareE2E = await best(reps, async () => {
      const m = gpu.upload(a, n, n);
      const s = gpu.square(m);
      await s.read();
      m.free();
      s.free();
    });

    progress(`n = ${n}: multiply, end-to-end`);
    const mulE2E = await best(reps, async () => {
      const ga = gpu.upload(a, n, n);
      const gb = gpu.upload(b, n, n);
      const c = gpu.matmul(ga, gb);
      await c.read();
      [ga, gb, c].forEach((m) => m.free());
    });

    const ga = gpu.upload(a, n, n);
    const gb = gpu.upload(b, n, n);
    await gpu.finish();
    const chained = (step) => async () => {
      let x = ga;
      for (let i = 0; i < CHAIN; i++) {
        const y = step(x);
        if (x !== ga) x.free();
        x = y;
      }
      await x.read();
      x.free();
    };
    progress(`n = ${n}: squaring, resident (${CHAIN} chained)`);
    const squareResident = await best(reps, chained((x) => gpu.square(x)));
    progress(`n = ${n}: multiply, resident (${CHAIN} chained)`);
    const mulResident = await best(reps, chained((x) => gpu.matmul(x, gb)));
    ga.free();
    gb.free();

    progress(`n = ${n}: JavaScript float64`);
    const jsMs = await best(reps, () => referenceTiming(a, b, n, n, n));

    rows.push({
      n,
      squareE2E: gflops(1, squareE2E),
      squareResident: gflops(CHAIN, squareResident),
      mulE2E: gflops(1, mulE2E),
      mulResident: gflops(CHAIN, mulResident),
      js: gflops(1, jsMs),
    });
  }
  return rows;
}
