// The benchmark: GFLOPS of squaring and multiplying n x n matrices, end-to-end (upload, compute,
// read-back) and resident (data stays on the GPU: 10 chained products, one read-back), beside
// JavaScript float64 in the same run. A product of n x n matrices counts 2 n^3 flops.

import { mulberry32, randomMatrix } from "../reference/products.js";
import { referenceTiming } from "../reference/worker-client.js";
import { MATMUL_PATHS, pathsOn, step } from "../paths.js";

const CHAIN = 10;

/** Scales `a` (n x n) in place so that its infinity norm is 1: chained products stay finite. */
export function normalise(a, n) {
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
export async function best(reps, run) {
  await new Promise((r) => setTimeout(r, 0)); // let the page repaint between measurements
  await run();
  let bestMs = Infinity;
  for (let r = 0; r < reps; r++) {
    // A run shorter than the clock can tell (a small product on the CPU) is repeated until
    // 20 ms have passed, and its mean taken.
    const t0 = performance.now();
    let runs = 0;
    let reported;
    do {
      reported = await run();
      runs += 1;
    } while (typeof reported !== "number" && performance.now() - t0 < 20);
    bestMs = Math.min(bestMs, typeof reported === "number" ? reported : (performance.now() - t0) / runs);
  }
  return bestMs;
}

/** Mean milliseconds of synchronous `run`, repeated until 20 ms have passed (coarse timers). */
function perRun(run) {
  const t0 = performance.now();
  let runs = 0;
  do {
    run();
    runs++;
  } while (performance.now() - t0 < 20);
  return (performance.now() - t0) / runs;
}

/**
 * The matrices of the products benchmarks at order n (the page's and the peer benchmark's):
 * entries uniform in [-1, 1) from mulberry32(n), each scaled to infinity norm 1.
 */
export function productMatrices(n) {
  const next = mulberry32(n);
  const a = normalise(randomMatrix(next, n * n), n);
  const b = normalise(randomMatrix(next, n * n), n);
  return { a, b };
}

/**
 * Runs the benchmark on `gpu` for each n in `sizes`, on every path of MATMUL_PATHS (www/paths.js)
 * that runs here; calls `progress(text)` before each step and returns one row per n:
 * {n, js, and for each path key: `${key}E2E`, `${key}Resident` (GFLOPS) and `${key}Peak` (the
 * most texture bytes texla held at once during that path's runs, pooled ones included)}. A path
 * that does not run on this backend has nulls.
 */
export async function runBenchmark(gpu, sizes, progress = () => {}) {
  const rows = [];
  for (const n of sizes) {
    const { a, b } = productMatrices(n);
    const flops = 2 * n ** 3;
    const gflops = (count, ms) => (count * flops) / (ms * 1e6);
    const reps = n <= 256 ? 3 : 1;
    const row = { n };
    for (const p of MATMUL_PATHS) Object.assign(row, { [`${p.key}E2E`]: null, [`${p.key}Resident`]: null, [`${p.key}Peak`]: null });

    for (const p of pathsOn(gpu)) {
      // Each path's peak starts from the matrices it makes itself.
      gpu.releasePooled();
      gpu.resetPeak();
      progress(`n = ${n}: ${p.label}, end-to-end`);
      const e2e = await best(reps, async () => {
        const ga = gpu.upload(a, n, n);
        const gb = p.square ? null : gpu.upload(b, n, n);
        const c = step(gpu, p, ga, gb);
        await c.read();
        [ga, gb, c].forEach((m) => m?.free());
      });

      const ga = gpu.upload(a, n, n);
      const gb = p.square ? null : gpu.upload(b, n, n);
      await gpu.finish();
      progress(`n = ${n}: ${p.label}, resident (${CHAIN} chained)`);
      const resident = await best(reps, async () => {
        let x = ga;
        for (let i = 0; i < CHAIN; i++) {
          const y = step(gpu, p, x, gb);
          if (x !== ga) x.free();
          x = y;
        }
        await x.read();
        x.free();
      });
      ga.free();
      gb?.free();
      row[`${p.key}E2E`] = gflops(1, e2e);
      row[`${p.key}Resident`] = gflops(CHAIN, resident);
      row[`${p.key}Peak`] = gpu.memory().peakBytes;
    }
    gpu.releasePooled();

    progress(`n = ${n}: JavaScript float64`);
    const jsMs = await best(reps, () => referenceTiming(a, b, n, n, n));
    row.js = gflops(1, jsMs);
    rows.push(row);
  }
  return rows;
}

/**
 * Functions timed by `runFunctionBenchmark` (the thesis's Table 5 and more): [name, the GPU's
 * expression, the input ranges inside the domain (one per input), the JavaScript twin].
 * "sincos" is two outputs of one pass (`gpu.sincos`).
 */
const FUNCTION_BENCH = [
  ...[["inv", 0.5, 2, (x) => 1 / x], ["sqrt", 0.5, 2, Math.sqrt], ["invsqrt", 0.5, 2, (x) => 1 / Math.sqrt(x)],
    ["cbrt", -2, 2, Math.cbrt], ["exp", -5, 5, Math.exp], ["ln", 0.5, 2, Math.log], ["log10", 0.5, 2, Math.log10],
    ["sin", -3, 3, Math.sin], ["sin_builtin", -3, 3, Math.sin], ["cos", -3, 3, Math.cos], ["tan", -1, 1, Math.tan],
    ["asin", -0.9, 0.9, Math.asin], ["acos", -0.9, 0.9, Math.acos], ["atan", -3, 3, Math.atan],
    ["sinh", -3, 3, Math.sinh], ["cosh", -3, 3, Math.cosh], ["tanh", -3, 3, Math.tanh],
    ["asinh", -3, 3, Math.asinh], ["acosh", 1.1, 3, Math.acosh], ["atanh", -0.9, 0.9, Math.atanh]]
    .map(([name, lo, hi, js]) => [name, `${name}(a)`, [[lo, hi]], js]),
  ["div", "a / b", [[-2, 2], [0.5, 2]], (x, y) => x / y],
  ["pow", "pow(a, b)", [[0.5, 2], [-3, 3]], Math.pow],
  ["atan2", "atan2(a, b)", [[-2, 2], [-2, 2]], Math.atan2],
  ["sincos", null, [[-3, 3]], (x) => Math.sin(x) + Math.cos(x)],
];

/** Elements per second of function `f` (a FUNCTION_BENCH row) on `side x side` matrices. */
async function functionRate(gpu, [name, expr, ranges, js], side) {
  const n = side * side;
  const data = ranges.map(([lo, hi], i) => randomMatrix(mulberry32(7 + i), n, lo, hi));
  const inputs = data.map((d) => gpu.upload(d, side, side));
  const gpuMs = await best(2, async () => {
    for (let i = 0; i < CHAIN; i++) {
      if (expr) gpu.map(expr, inputs).free();
      else gpu.sincos(inputs[0]).forEach((m) => m.free());
    }
    await gpu.finish();
  });
  inputs.forEach((m) => m.free());
  const out = new Float32Array(n);
  const [x, y] = data;
  const jsMs = await best(2, async () =>
    perRun(() => {
      if (y) for (let i = 0; i < n; i++) out[i] = js(x[i], y[i]);
      else for (let i = 0; i < n; i++) out[i] = js(x[i]);
    }),
  );
  return { name, gpu: (CHAIN * n) / (gpuMs * 1e-3), js: n / (jsMs * 1e-3) };
}

/**
 * Elements per second of each function on a `side x side` matrix, on the GPU (resident: 10
 * passes, then one finish) and in a JavaScript loop over Float32Arrays (the thesis, Table 5).
 */
export async function runFunctionBenchmark(gpu, side = 512, progress = () => {}) {
  const rows = [];
  for (const f of FUNCTION_BENCH) {
    progress(f[0]);
    rows.push(await functionRate(gpu, f, side));
  }
  return rows;
}

/**
 * The thesis's Fig. 7: elements per second of sqrt and sinh (unary), div and pow (binary) against
 * the element count (side² for each side in `sides`): where the GPU levels off, the per-pass
 * cost no longer dominating.
 */
export async function runSweepBenchmark(gpu, sides, progress = () => {}) {
  const rows = [];
  for (const side of sides) {
    const row = { elements: side * side };
    for (const f of FUNCTION_BENCH.filter(([name]) => ["sqrt", "sinh", "div", "pow"].includes(name))) {
      progress(`${f[0]}, ${side} x ${side}`);
      const r = await functionRate(gpu, f, side);
      row[f[0]] = r.gpu;
      row[`${f[0]}JS`] = r.js;
    }
    rows.push(row);
  }
  return rows;
}

/** Matrix orders for `runMatvecBenchmark`, multiples of 16 and not. */
export const MATVEC_SIZES = [16, 31, 64, 100, 128, 250, 256, 500, 512, 1000, 1024, 2000, 2048, 4096];

/**
 * GFLOPS (2 n^2 per product) of y = A x for n x n A: blocked (partial sums, then a reduction),
 * naive (one fragment per four rows), the compute path (WebGPU only, else null), all resident
 * (10 products, one finish), and JavaScript float64 (Fujimoto's comparison).
 */
export async function runMatvecBenchmark(gpu, sizes = MATVEC_SIZES, progress = () => {}) {
  const rows = [];
  for (const n of sizes) {
    progress(`n = ${n}`);
    const next = mulberry32(n);
    const a = randomMatrix(next, n * n);
    const x = randomMatrix(next, n);
    const ga = gpu.upload(a, n, n);
    const gx = gpu.upload(x, n, 1);
    const time = (op) => best(2, async () => {
      for (let i = 0; i < CHAIN; i++) op(ga, gx).free();
      await gpu.finish();
    });
    const blockedMs = await time((m, v) => gpu.mulVec(m, v, { kernel: "blocked" }));
    const naiveMs = await time((m, v) => gpu.mulVec(m, v, { kernel: "naive" }));
    const computeMs = gpu.backend === "webgpu" ? await time((m, v) => gpu.mulVec(m, v, { kernel: "compute" })) : null;
    ga.free();
    gx.free();
    const a64 = Float64Array.from(a);
    const x64 = Float64Array.from(x);
    const y = new Float64Array(n);
    const jsMs = await best(2, async () =>
      perRun(() => {
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let j = 0; j < n; j++) s += a64[i * n + j] * x64[j];
          y[i] = s;
        }
      }),
    );
    const gflops = (count, ms) => (count * 2 * n * n) / (ms * 1e6);
    rows.push({ n, blocked: gflops(CHAIN, blockedMs), naive: gflops(CHAIN, naiveMs), compute: computeMs === null ? null : gflops(CHAIN, computeMs), js: gflops(1, jsMs) });
  }
  return rows;
}

/**
 * Milliseconds per iteration of the solvers, GPU against JavaScript float64 on the same
 * problem: CG (plain and fused) and projected Jacobi at n = `dense` (1000 as in the ShaderX2 article,
 * Figure 3), and Jacobi at each n of `sizes` (Fujimoto's paper). Fixed iteration counts, so both do the
 * same work.
 */
export async function runSolverBenchmark(gpu, texla, sizes, progress = () => {}, dense = 1000) {
  const { cg64, jacobi64, lcp64 } = await import("../reference/solvers.js");
  const rows = [];
  // The GPU runs first; JavaScript then runs as many iterations as the GPU did (float32 may
  // stop early, when its residual underflows to zero).
  const run = async (solver, n, problem, gpuCall, jsCall) => {
    progress(`${solver}, n = ${n}`);
    const A = gpu.upload(problem.a, n, n);
    const B = gpu.upload(problem.b, n, 1);
    let passes = 0;
    let iterations = 1;
    const gpuMs = await best(1, async () => {
      const r = await gpuCall(A, B);
      iterations = Math.max(1, r.iterations);
      passes = r.passes / iterations;
      await r.x.read();
      r.x.free();
    });
    A.free();
    B.free();
    const a64 = Float64Array.from(problem.a);
    const b64 = Float64Array.from(problem.b);
    const t0 = performance.now();
    jsCall(a64, b64, iterations);
    const jsMs = performance.now() - t0;
    rows.push({ solver, n, iterations, gpuMs: gpuMs / iterations, jsMs: jsMs / iterations, passes });
  };
  const it = 50;
  const spd = texla.Gpgpu.problem("spd", dense, 1);
  // tol 0 and a fixed cap: exactly `it` iterations on both sides.
  await run("CG", dense, spd, (A, B) => gpu.cg(A, B, { tol: 0, maxIter: it }), (a, b, k) => cg64(a, b, dense, 0, k));
  await run("CG fused", dense, spd, (A, B) => gpu.cg(A, B, { tol: 0, maxIter: it, fused: true }), (a, b, k) => cg64(a, b, dense, 0, k));
  const lcp = texla.Gpgpu.problem("lcp", dense, 1);
  await run("projected Jacobi", dense, lcp, (A, B) => gpu.lcpJacobi(A, B, { omega: -0.8, iterations: it, residual: false }), (a, b, k) => lcp64(a, b, dense, -0.8, k, k));
  if (gpu.backend === "webgpu") {
    await run("projected Jacobi, one dispatch", dense, lcp, (A, B) => gpu.lcpJacobi(A, B, { kernel: "compute", omega: -0.8, iterations: it, residual: false }), (a, b, k) => lcp64(a, b, dense, -0.8, k, k));
  }
  for (const n of sizes) {
    const sys = texla.Gpgpu.problem("jacobi", n, 1, 1.2);
    const jit = 20;
    await run("Jacobi", n, sys, (A, B) => gpu.jacobi(A, B, { tol: 0, maxIter: jit, checkEvery: jit }), (a, b, k) => jacobi64(a, b, n, 0, k));
  }
  return rows;
}

/**
 * The wall's solve: projected Jacobi on the dense LCP of order n with 2n iterations (omega -0.8),
 * per n of `sizes`: ms per solve on the fragment path (3 passes per iteration) and, on WebGPU,
 * in one compute dispatch; JavaScript float64 runs the same iterations, and each GPU answer is
 * compared with it (max |x - x64| / max |x64|).
 */
export async function runLcpBenchmark(gpu, texla, sizes, progress = () => {}) {
  const { lcp64 } = await import("../reference/solvers.js");
  const rows = [];
  for (const n of sizes) {
    const iterations = 2 * n;
    const p = texla.Gpgpu.problem("lcp", n, 1);
    progress(`n = ${n}: JavaScript float64, ${iterations} iterations`);
    const t0 = performance.now();
    const ref = lcp64(Float64Array.from(p.a), Float64Array.from(p.b), n, -0.8, iterations, iterations);
    const jsMs = performance.now() - t0;
    const scale = ref.x.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
    const A = gpu.upload(p.a, n, n);
    const B = gpu.upload(p.b, n, 1);
    const paths = [["fragment, 3 passes per iteration", (o) => gpu.lcpJacobi(A, B, o)]];
    if (gpu.backend === "webgpu") paths.push(["compute, one dispatch", (o) => gpu.lcpJacobi(A, B, { ...o, kernel: "compute" })]);
    try {
      for (const [path, solve] of paths) {
        progress(`n = ${n}: ${path}, ${iterations} iterations`);
        let x = null;
        const ms = await best(1, async () => {
          x?.free();
          const r = await solve({ omega: -0.8, iterations, residual: false });
          await gpu.finish();
          x = r.x;
        });
        const got = await x.read();
        x.free();
        const error = got.reduce((m, v, i) => Math.max(m, Math.abs(v - ref.x[i])), 0) / scale;
        rows.push({ n, iterations, path, ms, error, jsMs });
      }
    } finally {
      A.free();
      B.free();
    }
  }
  return rows;
}

/**
 * The thesis's lesson, multiplication by accumulation passes: for each n, A B (n x n) by
 * `matmul`'s kernel "passes" with 1, 4, 24 (the ShaderX2 article's six MOPs) and n inner indices per pass, beside
 * `matmul` in one pass: ms (resident, the read-back awaited), passes counted, GFLOPS.
 */
export async function runPassesBenchmark(gpu, sizes, progress = () => {}) {
  const rows = [];
  for (const n of sizes) {
    const { a, b } = productMatrices(n);
    const A = gpu.upload(a, n, n), B = gpu.upload(b, n, n);
    const paths = [...new Set([1, 4, 24, n])].map((perPass) => [`${perPass} per pass`, perPass, () => gpu.matmul(A, B, { kernel: "passes", perPass })]);
    const kernel = gpu.capabilities().matmulKernel;
    paths.push([`matmul (${kernel} kernel, ${kernel === "cpu" ? "on the CPU, no pass" : "one pass"})`, n, () => gpu.matmul(A, B)]);
    try {
      for (const [path, perPass, run] of paths) {
        progress(`n = ${n}: ${path}`);
        let passes = 0;
        const ms = await best(n <= 256 ? 3 : 1, async () => {
          const before = gpu.counts().passes;
          const c = run();
          await c.read();
          passes = gpu.counts().passes - before;
          c.free();
        });
        rows.push({ n, path, perPass, passes, ms, gflops: (2 * n ** 3) / (ms * 1e6) });
      }
    } finally {
      A.free();
      B.free();
    }
  }
  return rows;
}
