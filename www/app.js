// The page: opens a GPU (WebGPU, else WebGL2), squares and multiplies matrices on it, reads the
// results back and compares them with JavaScript float64 math. `?backend=webgpu|webgl2|auto`
// picks the backend; `?bench=products|functions|matvec|solvers|lcp` runs a benchmark on load
// (`&sizes=64,128` to choose sizes; `&n=` the order of the solver benchmark's dense problems).

import { product } from "./products.js";
import { initWall } from "./wall.js";
import { explore, OPERATIONS } from "./explorer.js";
import { measureAccuracy, ULP_FLAG } from "./accuracy.js";
import { runBenchmark, runFunctionBenchmark, runMatvecBenchmark, runSolverBenchmark, runLcpBenchmark, MATVEC_SIZES } from "./bench.js";
import { MATMUL_PATHS } from "./paths.js";
import { plotProducts, loadRecordedPeers } from "./gflops-plot.js";
import { cg64, jacobi64, lcp64, complementarity64, relativeResidual64, plotResiduals, plateau } from "./solvers.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

let gpu = null;
let busy = false;

function fatal(message) {
  const box = $("fatal");
  box.textContent = message;
  box.hidden = false;
  document.body.dataset.state = "error";
}

async function start() {
  const choice = params.get("backend") ?? "auto";
  $("backend-select").value = ["auto", "webgpu", "webgl2"].includes(choice) ? choice : "auto";
  $("backend-select").addEventListener("change", (e) => {
    params.set("backend", e.target.value);
    location.search = params.toString();
  });
  let texla;
  try {
    texla = await import("../pkg/texla.js");
    await texla.default();
  } catch (e) {
    $("cap-backend").textContent = "none";
    fatal(`The texla module could not be loaded (${e.message}). Build it with the README's first command, which also serves this page.`);
    return;
  }
  try {
    gpu = await texla.Gpgpu.create(choice);
  } catch (e) {
    $("cap-backend").textContent = "none";
    fatal(`No GPU backend could be started.\n${e.message ?? e}`);
    return;
  }
  const caps = gpu.capabilities();
  $("cap-backend").textContent = caps.backend === "webgpu" ? "WebGPU" : "WebGL2";
  $("cap-backend").dataset.backend = caps.backend;
  $("cap-adapter").textContent = caps.adapter;
  $("cap-max").textContent = `${caps.maxTextureSize} texels: up to ${4 * caps.maxTextureSize} rows and ${caps.maxTextureSize} columns`;
  $("cap-reason").textContent = caps.reason;
  document.body.dataset.backend = caps.backend;
  showMemory();
  // Compile the kernel once, so that the first timing shown is not the shader compiler's.
  const one = gpu.upload(new Float32Array(1), 1, 1);
  const warm = gpu.square(one);
  await warm.read();
  one.free();
  warm.free();

  try {
    initWall(gpu);
  } catch (e) {
    $("wall-error").textContent = `The wall could not start: ${e.message ?? e}`;
    $("wall-error").hidden = false;
  }

  $("square-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runSquare();
  });
  $("multiply-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runMultiply();
  });
  const select = $("explorer-op");
  for (const [key, op] of Object.entries(OPERATIONS)) select.add(new Option(op.label, key));
  $("function-names").textContent = texla.Gpgpu.functions().join(", ");
  $("ulp-flag").textContent = ULP_FLAG;
  $("explorer-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runExplorer(texla);
  });
  $("solver-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runSolver(texla);
  });
  $("solver-kind").addEventListener("change", (e) => {
    if (e.target.value.startsWith("lcp")) $("solver-problem").value = "lcp";
    else if ($("solver-problem").value === "lcp") $("solver-problem").value = "poisson1d";
  });
  $("accuracy-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runAccuracy(texla);
  });
  $("bench-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runBench($("bench-kind").value, $("bench-sizes").value, texla);
  });
  $("bench-kind").addEventListener("change", (e) => {
    const sizes = { matvec: MATVEC_SIZES.join(","), functions: "512", solvers: "1024,2048,4096", products: "64,128,256,512,1024", lcp: "400" };
    $("bench-sizes").value = sizes[e.target.value];
  });
  if (params.has("bench")) {
    const kind = params.get("bench") || "products";
    $("bench-kind").value = kind;
    $("bench-kind").dispatchEvent(new Event("change"));
    if (params.get("sizes")) $("bench-sizes").value = params.get("sizes");
    await runBench(kind, $("bench-sizes").value, texla);
  } else {
    await runSquare();
  }
}

function showMemory() {
  if (!gpu) return;
  const m = gpu.memory();
  const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;
  $("cap-memory").textContent = `${m.liveTextures} live (${kib(m.liveBytes)}), ${m.pooledTextures} pooled for reuse (${kib(m.pooledBytes)})`;
  $("cap-memory").dataset.live = m.liveTextures;
}

/** Reads a number from an input, or throws a message naming the field. */
function number(id, name) {
  const v = Number($(id).value);
  if (!Number.isFinite(v)) throw new Error(`${name} must be a number, got "${$(id).value}"`);
  return v;
}

async function runExplorer(texla) {
  const out = $("explorer-result");
  await guarded(out, async () => {
    const [m, k, n] = ["m", "k", "n"].map((d) => whole(`explorer-${d}`, d, 1, 2048));
    const lo = number("explorer-lo", "the lower input bound");
    const hi = number("explorer-hi", "the upper input bound");
    if (!(lo < hi)) throw new Error(`the input range must have from < to, got [${lo}, ${hi})`);
    const seed = whole("explorer-seed", "seed", 0, 2 ** 32 - 1);
    await explore(gpu, texla, out, { name: $("explorer-op").value, m, k, n, expr: $("explorer-expr").value, lo, hi, seed });
  });
}

async function runSolver(texla) {
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
    const n = whole("solver-n", "n", 1, problem === "poisson2d" ? 45 : 2048);
    const tol = positive("solver-tol", "tol");
    const maxIter = whole("solver-iter", "max iterations", 1, 100000);
    const omega = number("solver-omega", "ω");
    const alpha = Number($("solver-alpha").value);
    const p = texla.Gpgpu.problem(problem, n, 1, alpha);
    const N = p.n;
    const A = gpu.upload(p.a, N, N);
    const B = gpu.upload(p.b, N, 1);
    const bar = $("solver-progress");
    const onProgress = (it, of, res) => {
      bar.value = it / of;
      out.innerHTML = `<div class="status">GPU: iteration ${it} of at most ${of}${res === null ? "" : `, residual ${res.toExponential(2)}`}</div>`;
    };
    const options = { tol, maxIter, fused: kind === "cg-fused", onProgress, signal: controller.signal };
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
          const r = solver === "lcp-compute"
            ? await gpu.lcpJacobiCompute(A, B, chunk)
            : await gpu.lcpJacobi(A, B, { ...chunk, signal: controller.signal });
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
        result = await (kind === "jacobi" ? gpu.jacobi(A, B, options) : gpu.cg(A, B, options));
        gpuResiduals = [...result.residuals];
        passes = result.passes;
        readbacks = result.readbacks;
      }
    } finally {
      A.free();
      B.free();
    }
    const t1 = performance.now();
    const x = await result.x.read();
    result.x.free();
    out.innerHTML = `<div class="status">JavaScript float64…</div>`;
    await new Promise((r) => setTimeout(r, 0));
    const a64 = Float64Array.from(p.a);
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
    out.innerHTML = `<div class="summary" id="solver-summary" data-gpu-error="${gpuErr}" data-js-error="${jsErr}" data-iterations="${result.iterations}">
      <table class="numbers">
        <tr><th></th><th>GPU float32 (${gpu.backend}${solver === "lcp-compute" ? ", one compute dispatch per run" : ""})</th><th>JavaScript float64</th></tr>
        <tr><th>order n</th><td>${N}</td><td>${N}</td></tr>
        <tr><th>iterations</th><td>${result.iterations}${kind === "lcp" ? "" : result.converged ? " (converged)" : " (not converged)"}</td><td>${ref.iterations}</td></tr>
        <tr><th>final ${measure}</th><td>${gpuResiduals.at(-1)?.toExponential(2)}</td><td>${ref.residuals.at(-1).toExponential(2)}</td></tr>
        <tr><th>the same for the GPU's x, in float64</th><td id="solver-true-residual">${trueResidual.toExponential(2)}</td><td>–</td></tr>
        <tr><th>max |x − x*| / max |x*|</th><td>${gpuErr.toExponential(2)}</td><td>${jsErr.toExponential(2)}</td></tr>
        <tr><th>time per iteration</th><td>${((t1 - t0) / its).toFixed(3)} ms</td><td>${((t3 - t2) / (ref.iterations || 1)).toFixed(3)} ms</td></tr>
        <tr><th>GPU passes, read-backs</th><td>${passes} passes, ${readbacks} read-backs (${(passes / its).toFixed(1)} and ${(readbacks / its).toFixed(1)} per iteration)</td><td>–</td></tr>
      </table>
      <p>${stop === null ? "The float32 residual was still falling at the last iteration." : `float32 stops improving at iteration ${stop * step} (residual ${gpuResiduals[stop].toExponential(2)}); float64 goes on to ${ref.residuals.at(-1).toExponential(2)}.`}</p>
    </div>`;
    plotResiduals($("solver-plot"), [
      { label: `GPU float32 ${measure}`, color: "#d1495b", values: gpuResiduals, step },
      { label: "JavaScript float64", color: "#00798c", values: ref.residuals, step },
    ], measure);
    bar.value = 1;
  });
  cancel.disabled = true;
}

async function runAccuracy(texla) {
  const table = $("accuracy-table");
  await guarded($("accuracy-status"), async () => {
    table.innerHTML = "";
    const rows = await measureAccuracy(gpu, texla, (what) => ($("accuracy-status").textContent = `measuring ${what}…`));
    const f = (v) => (v === undefined ? "–" : Number(v).toPrecision(3));
    table.innerHTML = `<tr><th>operation</th><th>inputs</th><th>max abs error</th><th>max rel error</th><th>max ULP</th><th>worst at</th><th>notes</th></tr>` +
      rows.map((r) => `<tr class="${r.flagged ? "flagged" : ""}" data-expr="${r.expr}"><td>${r.expr}</td><td>${r.range}</td><td>${f(r.maxAbs)}</td><td>${f(r.maxRel)}</td><td>${f(r.maxUlp)}</td>` +
        `<td>${r.worstAt?.length ? `${r.worstAt.map((v) => v.toPrecision(6)).join(", ")}: GPU ${f(r.worstGpu)}, JS ${f(r.worstJs)}` : "–"}</td>` +
        `<td>${[r.boundRatio !== undefined ? `${f(r.boundRatio)} of the float32 bound` : "", ...r.special].filter(Boolean).join("; ")}</td></tr>`).join("");
    const flagged = rows.filter((r) => r.flagged).length;
    $("accuracy-status").textContent = `${rows.length} rows on ${gpu.backend}; ${flagged} flagged.`;
    $("accuracy").dataset.done = "true";
  });
}

/** Reads a whole number in [lo, hi] from an input, or throws a message naming the field. */
function whole(id, name, lo, hi) {
  const v = Number($(id).value);
  if (!Number.isInteger(v) || v < lo || v > hi) {
    throw new Error(`${name} must be a whole number from ${lo} to ${hi}, got "${$(id).value}"`);
  }
  return v;
}

function positive(id, name) {
  const v = Number($(id).value);
  if (!(v > 0)) throw new Error(`${name} must be a positive number, got "${$(id).value}"`);
  return v;
}

async function runSquare() {
  const out = $("square-result");
  await guarded(out, async () => {
    const n = whole("square-n", "n", 1, 2048);
    const seed = whole("square-seed", "seed", 0, 2 ** 32 - 1);
    const threshold = positive("square-threshold", "the highlight threshold");
    await product(gpu, out, { m: n, k: n, n, seed, threshold, square: true, kernel: $("square-kernel").value });
  });
}

async function runMultiply() {
  const out = $("multiply-result");
  await guarded(out, async () => {
    const [m, k, n] = ["m", "k", "n"].map((d) => whole(`multiply-${d}`, d, 1, 4096));
    if (m * k * n > 2 ** 31) throw new Error(`m·k·n = ${m * k * n} is more than this page's float64 reference should take (2^31)`);
    const seed = whole("multiply-seed", "seed", 0, 2 ** 32 - 1);
    const threshold = positive("multiply-threshold", "the highlight threshold");
    await product(gpu, out, { m, k, n, seed, threshold, square: false, kernel: $("multiply-kernel").value });
  });
}

/** Runs `work` unless another run is going on; any error becomes a message in `out`. */
async function guarded(out, work) {
  if (busy) return;
  busy = true;
  document.querySelectorAll("button").forEach((b) => (b.disabled = true));
  try {
    await work();
  } catch (e) {
    out.replaceChildren(Object.assign(document.createElement("div"), { className: "error", textContent: e.message ?? String(e) }));
  } finally {
    showMemory();
    busy = false;
    document.querySelectorAll("button").forEach((b) => (b.disabled = false));
  }
}

/**
 * Runs benchmark `kind` ("products", "functions", "matvec" or "solvers") and shows its table and
 * JSON; products also plots GFLOPS against n beside the last recorded peer run.
 */
async function runBench(kind, sizesText, texla) {
  const table = $("bench-table");
  await guarded($("bench-status"), async () => {
    const sizes = sizesText.split(",").map((s) => Number(s.trim()));
    const max = kind === "matvec" || kind === "solvers" ? 4096 : 2048;
    if (!sizes.length || sizes.some((s) => !Number.isInteger(s) || s < 1 || s > max)) {
      throw new Error(`sizes must be whole numbers from 1 to ${max} separated by commas, got "${sizesText}"`);
    }
    table.innerHTML = "";
    $("bench-plot").hidden = true;
    $("bench-json").textContent = "";
    delete $("bench").dataset.done;
    const progress = (text) => ($("bench-status").textContent = `running ${kind}: ${text}…`);
    const f = (v) => `<td>${v.toFixed(2)}</td>`;
    const e = (v) => `<td>${(v / 1e6).toFixed(1)}</td>`;
    let rows;
    if (kind === "functions") {
      rows = await runFunctionBenchmark(gpu, sizes[0], progress);
      table.innerHTML = `<tr><th>function</th><th>GPU (M elements/s)</th><th>JS (M elements/s)</th><th>GPU / JS</th></tr>` +
        rows.map((r) => `<tr><td>${r.name}</td>${e(r.gpu)}${e(r.js)}<td>${(r.gpu / r.js).toFixed(1)}×</td></tr>`).join("");
    } else if (kind === "solvers") {
      rows = await runSolverBenchmark(gpu, texla, sizes, progress, Number(params.get("n") ?? 1000));
      table.innerHTML = `<tr><th>solver</th><th>n</th><th>GPU ms / iteration</th><th>JS float64 ms / iteration</th><th>JS / GPU</th><th>GPU passes / iteration</th></tr>` +
        rows.map((r) => `<tr><td>${r.solver}</td><td>${r.n}</td>${f(r.gpuMs)}${f(r.jsMs)}<td>${(r.jsMs / r.gpuMs).toFixed(1)}×</td><td>${r.passes.toFixed(1)}</td></tr>`).join("");
    } else if (kind === "lcp") {
      rows = await runLcpBenchmark(gpu, texla, sizes, progress);
      table.innerHTML = `<tr><th>n</th><th>iterations</th><th>path</th><th>GPU ms per solve</th><th>max |x − x64| / max |x64|</th><th>JS float64 ms</th><th>JS / GPU</th></tr>` +
        rows.map((r) => `<tr><td>${r.n}</td><td>${r.iterations}</td><td>${r.path}</td>${f(r.ms)}<td>${r.error.toExponential(1)}</td>${f(r.jsMs)}<td>${(r.jsMs / r.ms).toFixed(1)}×</td></tr>`).join("");
    } else if (kind === "matvec") {
      rows = await runMatvecBenchmark(gpu, sizes, progress);
      table.innerHTML = `<tr><th>n</th><th>blocked GFLOPS</th><th>naive GFLOPS</th><th>compute path GFLOPS</th><th>JS float64 GFLOPS</th><th>blocked / naive</th></tr>` +
        rows.map((r) => `<tr><td>${r.n}</td>${f(r.blocked)}${f(r.naive)}${r.compute === null ? "<td>WebGPU only</td>" : f(r.compute)}${f(r.js)}<td>${(r.blocked / r.naive).toFixed(1)}×</td></tr>`).join("");
    } else {
      rows = await runBenchmark(gpu, sizes, progress);
      const mib = (v) => `<td>${v === null ? "–" : (v / 2 ** 20).toFixed(2)}</td>`;
      const cell = (v) => (v === null ? `<td>not on ${gpu.backend}</td>` : f(v));
      // Columns for the paths this build has (a path of another backend says so).
      const paths = MATMUL_PATHS.filter((p) => typeof gpu[p.method] === "function");
      table.innerHTML = `<tr><th rowspan="2">n</th>${paths.map((p) => `<th colspan="3">${p.label}</th>`).join("")}<th rowspan="2">JS float64</th><th rowspan="2">best GPU / JS</th></tr>` +
        `<tr>${paths.map(() => "<th>end-to-end</th><th>resident</th><th>peak MiB</th>").join("")}</tr>` +
        rows.map((r) => `<tr><td>${r.n}</td>${paths.map((p) => cell(r[`${p.key}E2E`]) + cell(r[`${p.key}Resident`]) + mib(r[`${p.key}Peak`])).join("")}${f(r.js)}` +
          `<td>${(Math.max(...MATMUL_PATHS.map((p) => r[`${p.key}Resident`] ?? 0)) / r.js).toFixed(1)}×</td></tr>`).join("");
      const plot = $("bench-plot");
      plot.hidden = false;
      plotProducts(plot, rows, gpu.backend, await loadRecordedPeers());
    }
    const report = { kind, backend: gpu.backend, adapter: gpu.capabilities().adapter, rows };
    $("bench-json").textContent = JSON.stringify(report, null, 2);
    $("bench-status").textContent = `done: ${kind} on ${gpu.backend}, ${navigator.userAgent}`;
    $("bench").dataset.done = "true";
  });
}

start();
