// The checks of lessons 9 to 12 (solvers, the LCP, the SIMD-optimization paper's linear expressions, the thesis's
// NMF): each a small run on the user's GPU against the same algorithm in JavaScript float64, in
// the form checks.js describes. CG (fused update), projected Jacobi and NMF run their lesson's
// kernel inside a loop, so their checks give no `shaders`: the lesson shows the kernel's
// sources from kernels.js, which the run used.

import { cg64, lcp64, complementarity64, relativeResidual64 } from "../reference/solvers.js";
import { nmf64 } from "../reference/nmf.js";
import { mulberry32, randomMatrix, dotErrorBound } from "../reference/products.js";
import { linear64, poissonCondition } from "../reference/lessons.js";
import { contactGaussSeidel64, contactJacobi64, contactNesterov64, contactResidual64 } from "../reference/contact.js";
import { drawResiduals, drawSolverCurves } from "./pictures.js";

const now = () => performance.now();
const e2 = (v) => (Number.isFinite(v) ? v.toExponential(2) : String(v));
const U = 2 ** -24;
const maxAbsDiff = (p, q) => p.reduce((m, v, i) => Math.max(m, Math.abs(v - q[i])), 0);
const maxAbs = (p) => p.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

/** Lesson 11's system: a tridiagonal one of 16 unknowns, shuffled (the natural order scatters
 * its non-zeros over many 4 x 4 blocks), as a LinearExpr; `next` goes on with its random numbers. */
export function shuffledSystem(texla) {
  const m = 16;
  const next = mulberry32(21);
  const shuffle = [...Array(m).keys()];
  for (let i = m - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [shuffle[i], shuffle[j]] = [shuffle[j], shuffle[i]];
  }
  const a = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < m) a[shuffle[i] * m + shuffle[j]] = j === i ? 2 : -1 + 0.5 * next();
  const b = Float64Array.from({ length: m }, () => 2 * next() - 1);
  return { a, b, m, next, expr: texla.LinearExpr.fromDense(a, m, b) };
}

/** The wall's three contact solvers on one frame: the frame's LCP (after 20 frames of one wall,
 * awake) solved from zero by each on the GPU (`wall.solveLcp`) and by its float64 twin, for 1 to
 * 32 iterations; the residuals (in float64) drawn in the lesson's picture. Within when every GPU
 * residual is within 5% (plus 10⁻⁵ m/s) of its twin's: the same algorithm in float32. */
const SOLVERS = [["nesterov", "accelerated Jacobi", contactNesterov64], ["jacobi", "projected Jacobi", contactJacobi64], ["gauss-seidel", "Gauss-Seidel", contactGaussSeidel64]];
const KS = [1, 2, 4, 8, 16, 32];
async function wallSolvers(gpu, section) {
  const wall = gpu.wall(1, 1);
  const curves = [];
  let lcp;
  try {
    wall.setSleeping(false);
    for (let f = 0; f < 20; f++) await wall.step();
    lcp = wall.lcp();
    const zero = { ...lcp, x0: new Float64Array(lcp.size) };
    for (const [solver, name, twin] of SOLVERS) {
      const c = { name, gpu: [], f64: [], ms: 0 };
      for (const k of KS) {
        const t = now();
        const x = await wall.solveLcp(solver, k, "zero");
        c.ms += now() - t;
        c.gpu.push(contactResidual64(lcp, x));
        c.f64.push(contactResidual64(lcp, twin(zero, k)));
      }
      curves.push(c);
    }
  } finally {
    wall.free();
  }
  const box = section?.querySelector("[data-part=picture] .solvers-picture");
  if (box) drawSolverCurves(box, KS, curves);
  const within = curves.every((c) => c.gpu.every((r, i) => Math.abs(r - c.f64[i]) <= 0.05 * c.f64[i] + 1e-5));
  const colours = Math.max(...lcp.colour) + 1;
  const last = (c) => `${c.name} ${e2(c.gpu.at(-1))}`;
  return {
    within,
    lines: [`Three solvers on one frame of the wall (${lcp.contacts} contacts, ${lcp.size} unknowns), from zero: after ${KS.at(-1)} iterations the residual max |x − proj(x − (Ax + b))| is ${curves.map(last).join(", ")} m/s (the picture shows each curve beside its float64 twin).`,
      `Per iteration Gauss-Seidel goes furthest, but a sweep takes its ${colours} colours one after another (${2 * colours} passes, where an accelerated or plain Jacobi iteration is one pass, or two from the factors). Warm-started from the last frame, as the wall runs, the accelerated solver holds the wall at rest within 0.1% of an edge with 80 iterations a frame; projected Jacobi drifts 9.7% of an edge in 30 s at 200; Gauss-Seidel collapses at 4 sweeps and stands with 1% drift at 100; the soft step (the peers' kind: 4 substeps of soft sweeps and a rigid one, 5 row updates a contact and substep where Rapier makes 4) sinks 0.68% of an edge as its springs take the load, then holds within 0.014%. It is not drawn here: its bodies move within the frame, so it answers no one LCP (docs/wall.md).`,
      within ? "Every GPU residual is within 5% of its float64 twin's: within." : "A GPU residual is more than 5% off its float64 twin's: outside."],
    timing: curves.map((c) => [`wall frame, ${c.name}: ${KS.join(", ")} iterations (${KS.reduce((a, b) => a + b)} in all)`, c.ms]),
  };
}

/** CG on 1D Poisson of order n, in float64 and in float32 simulated in JavaScript (lesson 9's
 * picture before its check has run on the GPU). */
export function simulatedCg(texla, n = 64) {
  const p = texla.Gpgpu.problem("poisson1d", n, 1);
  const [a, b] = [Float64Array.from(p.a), Float64Array.from(p.b)];
  const f32 = cg64(a, b, n, 1e-12, 3 * n, Math.fround);
  return { f32, f64: cg64(a, b, n, 1e-12, 3 * n), true32: relativeResidual64(a, b, f32.x, n) };
}

export const APP_CHECKS = {
  async solvers(gpu, texla, section) {
    const n = 64;
    const p = texla.Gpgpu.problem("poisson1d", n, 1);
    const [A, B] = [gpu.upload(p.a, n, n), gpu.upload(p.b, n, 1)];
    // Two iterations first build CG's kernels, so that the time is the solve's.
    (await gpu.cg(A, B, { tol: 1e-12, maxIter: 2, fused: true })).x.free();
    await gpu.finish();
    const t0 = now();
    const before = gpu.counts().passes;
    let r;
    try {
      r = await gpu.cg(A, B, { tol: 1e-12, maxIter: 3 * n, fused: true });
    } finally {
      [A, B].forEach((x) => x.free());
    }
    const ms = now() - t0;
    const passes = gpu.counts().passes - before;
    const x = await r.x.read();
    r.x.free();
    const t1 = now();
    const ref = cg64(Float64Array.from(p.a), Float64Array.from(p.b), n, 1e-12, 3 * n);
    const js = now() - t1;
    const kappa = poissonCondition(n);
    const err = maxAbsDiff(x, p.x) / maxAbs(p.x);
    const tol = kappa * n * U;
    const within = err <= tol;
    const true32 = relativeResidual64(Float64Array.from(p.a), Float64Array.from(p.b), Float64Array.from(x), n);
    drawResiduals(section.querySelector("[data-part=picture] .picture"), [...r.residuals], ref.residuals, true32);
    return {
      within,
      lines: [`Conjugate gradients on 1D Poisson, n = ${n} (κ ≈ ${kappa.toFixed(0)}), asked for a relative residual of 10⁻¹²: float32 on the GPU against float64 in JavaScript, both from x = 0.`,
        `float32 ran ${r.iterations} iterations; its own residual (updated by recurrence) went down to ${e2(Math.min(...r.residuals))}, but the true residual |b − Ax|/|b| of its x, computed in float64, is ${e2(true32)}: float32 has stalled there. float64 reached ${e2(ref.residuals.at(-1))} in ${ref.iterations} iterations.`,
        `Tolerance: max |x − x*| / max |x*| ≤ κ·n·2⁻²⁴ = ${e2(tol)} (x* the known answer).`,
        within ? `The GPU's x is off by ${e2(err)} of max |x*|: within the tolerance.` : `The GPU's x is off by ${e2(err)} of max |x*|: outside the tolerance.`],
      timing: [[`GPU CG, ${r.iterations} iterations (${passes} passes, ${r.readbacks} read-backs)`, ms], ["per iteration", ms / Math.max(1, r.iterations)], [`JavaScript float64 CG, ${ref.iterations} iterations`, js]],
    };
  },

  async lcp(gpu, texla, section) {
    const n = 40;
    const [omega, iterations] = [-0.8, 300];
    const p = texla.Gpgpu.problem("lcp", n, 1);
    const [A, B] = [gpu.upload(p.a, n, n), gpu.upload(p.b, n, 1)];
    (await gpu.lcpJacobi(A, B, { omega, iterations: 2, residual: false })).x.free();
    await gpu.finish();
    const t0 = now();
    let r;
    try {
      r = await gpu.lcpJacobi(A, B, { omega, iterations, residual: false });
    } finally {
      [A, B].forEach((x) => x.free());
    }
    const ms = now() - t0;
    const x = await r.x.read();
    r.x.free();
    const [a64, b64] = [Float64Array.from(p.a), Float64Array.from(p.b)];
    const t1 = now();
    const ref = lcp64(a64, b64, n, omega, iterations);
    const js = now() - t1;
    const err = maxAbsDiff(x, p.x) / (maxAbs(p.x) || 1);
    const residual = complementarity64(a64, b64, Float64Array.from(x), n);
    const within = err <= 1e-5;
    const wall = await wallSolvers(gpu, section);
    return {
      within: within && wall.within,
      lines: [`Projected Jacobi x ← max(0, x + ω D⁻¹(Ax + b)), ω = ${omega}, ${iterations} iterations, on an LCP of order ${n} with a known answer x* (some unknowns 0, some not): on the GPU in float32, and in float64 in JavaScript.`,
        `The GPU's x in float64: max |min(x, Ax + b)| = ${e2(residual)}; float64's own run: max |x − x*| = ${e2(maxAbsDiff(ref.x, p.x))}.`,
        "Tolerance: max |x − x*| / max |x*| ≤ 10⁻⁵.",
        within ? `The GPU's x is off by ${e2(err)}: within.` : `The GPU's x is off by ${e2(err)}: outside.`,
        ...wall.lines],
      timing: [[`GPU, ${iterations} iterations (nothing read back until the end)`, ms], ["per iteration", ms / iterations], ["JavaScript float64", js], ...wall.timing],
    };
  },

  async simd(gpu, texla) {
    const { a, b, m, next, expr } = shuffledSystem(texla);
    const t0 = now();
    const found = expr.optimize({ seed: 1, moves: 20000 });
    const annealMs = now() - t0;
    const e = expr.permute(found.permutation);
    const cols = 4;
    const x = randomMatrix(mulberry32(22), m * cols);
    const X = gpu.upload(x, m, cols);
    gpu.linear(e, X).free();
    await gpu.finish();
    const t1 = now();
    const Y = gpu.linear(e, X);
    const shaders = gpu.lastShaders();
    await gpu.finish();
    const ms = now() - t1;
    const y = await Y.read();
    [X, Y].forEach((v) => v.free());
    const exact = linear64(a, b, x, m, cols);
    let ratio = 0;
    y.forEach((v, i) => {
      const err = Math.abs(v - exact.y[i]);
      ratio = Math.max(ratio, err === 0 ? 0 : Number.isFinite(err) ? err / dotErrorBound(m + 1, exact.abs[i]) : Infinity);
    });
    const within = ratio <= 1;
    return {
      within,
      lines: [`y = A x + b for a ${m} × ${m} tridiagonal system whose unknowns were shuffled: natural order ${expr.cost()} four-wide instructions, after ${found.foundBy === "identity" ? "annealing (no better order found)" : `annealing (${found.foundBy})`} ${e.cost()}.`,
        `gpu.linear ran the optimised order's generated kernel (${e.instructions().length} instructions, coefficients baked in) on ${cols} random vectors x, against float64 A x + b.`,
        `Tolerance: every element within 2(k + 2)·2⁻²⁴·(Σ|aᵢⱼxⱼ| + |bᵢ|), k = ${m + 1}.`,
        within ? `Every element within: the worst at ${ratio.toFixed(3)} of its bound.` : `An element is ${ratio.toFixed(2)} times its bound.`],
      timing: [["simulated annealing, 20,000 moves (JavaScript → wasm, CPU)", annealMs], ["GPU, gpu.linear (one pass)", ms]],
      shaders,
      title: "gpu.linear's generated kernel for the annealed order (coefficients baked in)",
    };
  },

  async nmf(gpu, texla) {
    const [pixels, count, k] = [361, 48, 6];
    const images = texla.Gpgpu.partsImages(count, 1);
    const next = mulberry32(31);
    const [u0, v0] = [Float32Array.from({ length: pixels * k }, () => 0.1 + next()), Float32Array.from({ length: count * k }, () => 0.1 + next())];
    const [F, U0, V0] = [gpu.upload(images, pixels, count), gpu.upload(u0, pixels, k), gpu.upload(v0, count, k)];
    const warm = await gpu.nmf(F, k, { iterations: 1, u0: U0, v0: V0 });
    [warm.u, warm.v].forEach((m) => m.free());
    await gpu.finish();
    const t0 = now();
    let r;
    try {
      r = await gpu.nmf(F, k, { iterations: 3, checkEvery: 3, u0: U0, v0: V0 });
    } finally {
      [F, U0, V0].forEach((m) => m.free());
    }
    const ms = now() - t0;
    const u = await r.u.read();
    [r.u, r.v].forEach((m) => m.free());
    const t1 = now();
    const exact = nmf64(Float64Array.from(images), Float64Array.from(u0), Float64Array.from(v0), pixels, count, k, { iterations: 3 });
    const js = now() - t1;
    const rel = maxAbsDiff(u, exact.u) / maxAbs(exact.u);
    const within = rel <= 1e-4;
    return {
      within,
      lines: [`Three multiplicative updates of F ≈ U Vᵀ, F ${pixels} × ${count} (generated 19 × 19 parts images as columns), k = ${k}, from the same random U₀, V₀ on the GPU (float32) and in JavaScript (float64).`,
        `The GPU's ‖F − U Vᵀ‖² went ${e2(r.errors[0])} → ${e2(r.errors.at(-1))}.`,
        "Tolerance: max |U − U₆₄| ≤ 10⁻⁴ · max |U₆₄| (each update is a few products and one element-wise pass; a few float32 roundings each).",
        within ? `U is off by ${e2(rel)} of its largest element: within.` : `U is off by ${e2(rel)} of its largest element: outside.`],
      timing: [["GPU, 3 iterations", ms], ["per iteration", ms / 3], ["JavaScript float64, 3 iterations", js]],
    };
  },
};
