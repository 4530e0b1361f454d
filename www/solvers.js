// The page's solver section: reads its form, solves on the GPU and in float64 (reference/solvers.js)
// side by side, and shows the convergence plot, errors and timings. CG on a dense matrix also
// runs in float-float (about 48 bits: gpu.uploadFloat64), a third column and a third curve.

import { cg64, jacobi64, lcp64, complementarity64, relativeResidual64, laplacian64 } from "./reference/solvers.js";
import { number, whole, positive } from "./fields.js";

const $ = (id) => document.getElementById(id);

/** Runs the solver chosen in the form on `gpu`, inside `guarded` (app.js: one run at a time). */
export async function runSolver(gpu, texla, guarded) {
  const out = $("solver-result");
  const controller = new AbortController();
  const cancel = $("solver-cancel");
  cancel.onclick = () => controller.abort();
  await guarded(out, async () => {
    cancel.disabled = false;
    const solver = $("solver-kind").value;
    // Both projected Jacobi paths are "lcp" below; `solver` tells them apart.
    const kind = solver.startsWith("lcp") ? "lcp" : solver;
    const problem = $("solver-problem").value;
    if ((kind === "lcp") !== (problem === "lcp")) throw new Error("projected Jacobi solves the LCP problem, and the LCP problem needs projected Jacobi");
    const n = whole("solver-n", "n", 1, problem === "poisson2d" ? 1024 : 2048);
    // A 2D Poisson grid past 45 x 45 is solved without its matrix: the GPU applies the 5-point
    // stencil to the grid (cgPoisson2d), and so does the float64 reference.
    const free = problem === "poisson2d" && n > 45;
    if (free && !kind.startsWith("cg")) throw new Error("a 2D Poisson grid past 45 x 45 is solved without its matrix, by conjugate gradients: choose one of the CG solvers");
    const tol = positive("solver-tol", "tol");
    const maxIter = whole("solver-iter", "max iterations", 1, 100000);
    const omega = number("solver-omega", "ω");
    const alpha = Number($("solver-alpha").value);
    const p = texla.Gpgpu.problem(problem, n, 1, alpha);
    const N = p.n;
    const A = free ? null : gpu.upload(p.a, N, N);
    const B = free ? gpu.upload(p.b, n, n) : gpu.upload(p.b, N, 1);
    const bar = $("solver-progress");
    const onProgress = (it, of, res) => {
      bar.value = it / of;
      out.innerHTML = `<div class="status">GPU: iteration ${it} of at most ${of}${res === null ? "" : `, residual ${res.toExponential(2)}`}</div>`;
    };
    // (fused only where asked: jacobi has no such option, and options a call does not have are refused.)
    const options = { tol, maxIter, onProgress, signal: controller.signal, ...(kind === "cg-fused" ? { fused: true } : {}) };
    await gpu.finish();
    const t0 = performance.now();
    let result;
    let gpuResiduals;
    let step = 1;
    let passes = 0;
    let readbacks = 0;
    try {
      if (kind === "lcp") {
        // Chunks warm-started from the last x, so the plot has a curve; one residual per chunk.
        step = Math.max(1, Math.ceil(maxIter / 40));
        gpuResiduals = [];
        let x = null;
        for (let done = 0; done < maxIter; done += step) {
          const chunk = { omega, iterations: Math.min(step, maxIter - done), x0: x ?? undefined, residual: true };
          const kernel = solver === "lcp-compute" ? "compute" : "fragment";
          const r = await gpu.lcpJacobi(A, B, { ...chunk, kernel, signal: controller.signal });
          if (controller.signal.aborted) throw new Error("cancelled");
          x?.free();
          x = r.x;
          gpuResiduals.push(r.residuals[0]);
          passes += r.passes;
          readbacks += r.readbacks;
          onProgress(done + step, maxIter, r.residuals[0]);
        }
        result = { x, iterations: maxIter, converged: false };
      } else {
        result = await (free ? gpu.cgPoisson2d(B, options) : kind === "jacobi" ? gpu.jacobi(A, B, options) : gpu.cg(A, B, options));
        gpuResiduals = [...result.residuals];
        passes = result.passes;
        readbacks = result.readbacks;
      }
    } finally {
      A?.free();
      B.free();
    }
    const t1 = performance.now();
    const x = await result.x.read();
    result.x.free();
    // CG on a dense matrix runs again in float-float, on float64 copies of the same A and b.
    const ff = kind.startsWith("cg") && !free ? await cgFloatFloat(gpu, p, { tol, maxIter, signal: controller.signal }, out) : null;
    out.innerHTML = `<div class="status">JavaScript float64…</div>`;
    await new Promise((r) => setTimeout(r, 0));
    const a64 = free ? laplacian64(n) : Float64Array.from(p.a);
    const b64 = Float64Array.from(p.b);
    const t2 = performance.now();
    const ref = kind === "lcp" ? lcp64(a64, b64, N, omega, maxIter, step) : kind === "jacobi" ? jacobi64(a64, b64, N, tol, maxIter) : cg64(a64, b64, N, tol, maxIter);
    const t3 = performance.now();
    const scale = p.x.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
    const err = (v) => v.reduce((m, xi, i) => Math.max(m, Math.abs(xi - p.x[i])), 0) / scale;
    const gpuErr = err(x);
    const jsErr = err(ref.x);
    // Projected Jacobi measured its residual after each chunk; the start (x = 0) is the same for both.
    if (kind === "lcp") gpuResiduals.unshift(ref.residuals[0]);
    const stop = plateau(gpuResiduals);
    // The GPU measures its residual in float32, where b + fl(Ax) can round to exactly 0.
    const x64 = Float64Array.from(x);
    const trueResidual = kind === "lcp" ? complementarity64(a64, b64, x64, N) : relativeResidual64(a64, b64, x64, N);
    const its = result.iterations || 1;
    const measure = kind === "lcp" ? "max |min(x, Ax + b)|" : "|b − Ax| / |b|";
    const e2 = (v) => v.toExponential(2);
    // The float-float column's cells, or nothing when float-float did not run.
    const ffCell = (id, text, tag = "td") => (ff ? `<${tag}${id ? ` id="${id}"` : ""}>${text()}</${tag}>` : "");
    let ffTrue;
    let ffErr;
    if (ff) {
      ffTrue = relativeResidual64(a64, b64, ff.x, N);
      ffErr = err(ff.x);
    }
    const ffData = ff ? ` data-ff-true-residual="${ffTrue}" data-ff-error="${ffErr}" data-ff-iterations="${ff.iterations}"` : "";
    const ffIts = ff?.iterations || 1;
    out.innerHTML = `<div class="summary" id="solver-summary" data-gpu-error="${gpuErr}" data-js-error="${jsErr}" data-iterations="${result.iterations}"${ffData}>
      <table class="numbers">
        <tr><th></th><th>GPU float32 (${gpu.backend}${solver === "lcp-compute" ? ", one compute dispatch per run" : ""})</th>${ffCell("", () => `GPU float-float (${gpu.backend}, unfused)`, "th")}<th>JavaScript float64</th></tr>
        <tr><th>order n</th><td>${N}${free ? ` (a ${n} × ${n} grid, its matrix applied as a stencil)` : ""}</td>${ffCell("", () => N)}<td>${N}</td></tr>
        <tr><th>iterations</th><td>${result.iterations}${kind === "lcp" ? "" : result.converged ? " (converged)" : " (not converged)"}</td>${ffCell("", () => `${ff.iterations}${ff.converged ? " (converged)" : " (not converged)"}`)}<td>${ref.iterations}</td></tr>
        <tr><th>final ${measure}</th><td>${gpuResiduals.at(-1)?.toExponential(2)}</td>${ffCell("", () => e2(ff.residuals.at(-1)))}<td>${ref.residuals.at(-1).toExponential(2)}</td></tr>
        <tr><th>the same for the GPU's x, in float64</th><td id="solver-true-residual">${trueResidual.toExponential(2)}</td>${ffCell("solver-ff-true-residual", () => e2(ffTrue))}<td>–</td></tr>
        <tr><th>max |x − x*| / max |x*|</th><td>${gpuErr.toExponential(2)}</td>${ffCell("", () => e2(ffErr))}<td>${jsErr.toExponential(2)}</td></tr>
        <tr><th>time per iteration</th><td>${((t1 - t0) / its).toFixed(3)} ms</td>${ffCell("", () => `${(ff.ms / ffIts).toFixed(3)} ms`)}<td>${((t3 - t2) / (ref.iterations || 1)).toFixed(3)} ms</td></tr>
        <tr><th>GPU passes, read-backs</th><td>${passes} passes, ${readbacks} read-backs (${(passes / its).toFixed(1)} and ${(readbacks / its).toFixed(1)} per iteration)</td>${ffCell("", () => `${ff.passes} passes, ${ff.readbacks} read-backs`)}<td>–</td></tr>
      </table>
      <p>${stop === null ? "The float32 residual was still falling at the last iteration." : `float32 stops improving at iteration ${stop * step} (residual ${gpuResiduals[stop].toExponential(2)}); float64 goes on to ${ref.residuals.at(-1).toExponential(2)}.`}</p>
      ${ff ? `<p id="solver-ff-note">The float32 x stops at a true residual of ${e2(trueResidual)} after ${result.iterations} iterations, however far its own recurrence goes (${e2(gpuResiduals.at(-1))}); the float-float x reaches ${e2(ffTrue)} in ${ff.iterations}.</p>` : ""}
    </div>`;
    plotResiduals($("solver-plot"), [
      { label: `GPU float32 ${measure}`, color: "#d1495b", values: gpuResiduals, step },
      ...(ff ? [{ label: "GPU float-float", color: "#edae49", values: ff.residuals, step: 1 }] : []),
      { label: "JavaScript float64", color: "#00798c", values: ref.residuals, step },
    ], measure);
    bar.value = 1;
  });
  cancel.disabled = true;
}

/**
 * CG in float-float on float64 copies of problem `p`'s A and b (unfused: float-float CG has no
 * fused update). Resolves to {x (Float64Array), residuals, iterations, converged, passes,
 * readbacks, ms}.
 */
async function cgFloatFloat(gpu, p, { tol, maxIter, signal }, out) {
  const A = gpu.uploadFloat64(Float64Array.from(p.a), p.n, p.n);
  const B = gpu.uploadFloat64(Float64Array.from(p.b), p.n, 1);
  const onProgress = (it, of, res) => {
    out.innerHTML = `<div class="status">GPU float-float: iteration ${it} of at most ${of}${res === null ? "" : `, residual ${res.toExponential(2)}`}</div>`;
  };
  try {
    await gpu.finish();
    const t0 = performance.now();
    const r = await gpu.cg(A, B, { tol, maxIter, onProgress, signal });
    const ms = performance.now() - t0;
    if (signal.aborted) throw new Error("cancelled");
    const x = await r.x.readFloat64();
    r.x.free();
    return { ...r, x, residuals: [...r.residuals], ms };
  } finally {
    A.free();
    B.free();
  }
}

/** Draws residual histories on a log scale: [{label, color, values, step}] (step: iterations per value). */
export function plotResiduals(canvas, series, yLabel) {
  const ctx = canvas.getContext("2d");
  canvas.dataset.series = series.map((s) => s.label).join("; ");
  const w = (canvas.width = 640);
  const h = (canvas.height = 320);
  const pad = { l: 60, r: 10, t: 10, b: 34 };
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, w, h);
  const all = series.flatMap((s) => [...s.values].filter((v) => v > 0 && Number.isFinite(v)));
  if (!all.length) return;
  const lo = Math.floor(Math.log10(Math.min(...all)));
  const hi = Math.ceil(Math.log10(Math.max(...all)));
  const maxX = Math.max(...series.map((s) => (s.values.length - 1) * (s.step ?? 1)), 1);
  const X = (i) => pad.l + ((w - pad.l - pad.r) * i) / maxX;
  const Y = (v) => pad.t + ((h - pad.t - pad.b) * (hi - Math.log10(v))) / Math.max(hi - lo, 1);
  ctx.strokeStyle = "#ddd";
  ctx.fillStyle = "#444";
  ctx.font = "12px system-ui";
  for (let e = lo; e <= hi; e++) {
    ctx.beginPath();
    ctx.moveTo(pad.l, Y(10 ** e));
    ctx.lineTo(w - pad.r, Y(10 ** e));
    ctx.stroke();
    ctx.fillText(`1e${e}`, 8, Y(10 ** e) + 4);
  }
  ctx.fillText("iteration", w / 2 - 20, h - 8);
  ctx.fillText("0", pad.l, h - 20);
  ctx.fillText(`${maxX}`, w - pad.r - 30, h - 20);
  series.forEach((s, k) => {
    ctx.strokeStyle = s.color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    s.values.forEach((v, i) => {
      const y = Y(Math.max(v, 10 ** lo));
      if (i === 0) ctx.moveTo(X(i * (s.step ?? 1)), y);
      else ctx.lineTo(X(i * (s.step ?? 1)), y);
    });
    ctx.stroke();
    ctx.fillStyle = s.color;
    ctx.fillText(`${s.label}`, w - 220, 24 + 16 * k);
  });
  ctx.fillStyle = "#444";
  ctx.fillText(yLabel, pad.l + 8, h - pad.b - 8);
}

/** The iteration after which the float32 residual stops falling (its minimum), or null. */
export function plateau(residuals) {
  let best = 0;
  residuals.forEach((v, i) => {
    if (v < residuals[best]) best = i;
  });
  return best < residuals.length - 1 ? best : null;
}
