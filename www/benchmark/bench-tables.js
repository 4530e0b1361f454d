// The page's benchmark section: runs the chosen benchmark (bench.js) and shows its table, its
// JSON and, for products, the GFLOPS plot beside the last recorded peer run.

import { runBenchmark, runFunctionBenchmark, runMatvecBenchmark, runSolverBenchmark, runLcpBenchmark, runPassesBenchmark, runSweepBenchmark } from "./bench.js";
import { runFigure3, runFigure8 } from "./bench-figures.js";
import { MATMUL_PATHS } from "../paths.js";
import { plotProducts, loadRecordedPeers, loadRecordedH100, loadRecordedInstructions } from "./gflops-plot.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

/**
 * Runs benchmark `kind` ("products", "functions", "matvec" or "solvers") and shows its table and
 * JSON; products also plots GFLOPS against n beside the last recorded peer run.
 */
export async function runBench(kind, sizesText, gpu, texla, guarded) {
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
      // Table 5's "Count" column from the record (www/data/table5-instructions.json): naga is
      // not in the wasm build, so the counts were made natively from the same WGSL.
      const counts = new Map((await loadRecordedInstructions())?.rows.map((c) => [c.name, c]) ?? []);
      const count = (name) => (counts.has(name) ? `<td>${counts.get(name).spirvFunction} / ${counts.get(name).spirvKernel}</td>` : "<td>–</td>");
      table.innerHTML = `<tr><th>function</th><th>GPU (M elements/s)</th><th>JS (M elements/s)</th><th>GPU / JS</th>` +
        `<th title="www/data/table5-instructions.json, made by native_bench --instructions">SPIR-V instructions of the WGSL kernel, counted by naga natively: the function / the whole kernel</th></tr>` +
        rows.map((r) => `<tr><td>${r.name}</td>${e(r.gpu)}${e(r.js)}<td>${(r.gpu / r.js).toFixed(1)}×</td>${count(r.name)}</tr>`).join("");
    } else if (kind === "solvers") {
      rows = await runSolverBenchmark(gpu, texla, sizes, progress, Number(params.get("n") ?? 1000));
      table.innerHTML = `<tr><th>solver</th><th>n</th><th>GPU ms / iteration</th><th>JS float64 ms / iteration</th><th>JS / GPU</th><th>GPU passes / iteration</th></tr>` +
        rows.map((r) => `<tr><td>${r.solver}</td><td>${r.n}</td>${f(r.gpuMs)}${f(r.jsMs)}<td>${(r.jsMs / r.gpuMs).toFixed(1)}×</td><td>${r.passes.toFixed(1)}</td></tr>`).join("");
    } else if (kind === "lcp") {
      rows = await runLcpBenchmark(gpu, texla, sizes, progress);
      table.innerHTML = `<tr><th>n</th><th>iterations</th><th>path</th><th>GPU ms per solve</th><th>max |x − x64| / max |x64|</th><th>JS float64 ms</th><th>JS / GPU</th></tr>` +
        rows.map((r) => `<tr><td>${r.n}</td><td>${r.iterations}</td><td>${r.path}</td>${f(r.ms)}<td>${r.error.toExponential(1)}</td>${f(r.jsMs)}<td>${(r.jsMs / r.ms).toFixed(1)}×</td></tr>`).join("");
    } else if (kind === "figure3") {
      rows = await runFigure3(gpu, texla, sizes[0], progress);
      table.innerHTML = `<tr><th>operation</th><th>n</th><th>GPU ms (call to read-back)</th><th>JS float64 ms</th><th>JS / GPU</th></tr>` +
        rows.map((r) => `<tr><td>${r.op}</td><td>${r.n}</td>${f(r.gpuMs)}${f(r.jsMs)}<td>${(r.jsMs / r.gpuMs).toFixed(2)}×</td></tr>`).join("");
    } else if (kind === "figure8") {
      rows = await runFigure8(gpu, sizes, progress);
      const ratio = (r, ms) => (ms === null ? "<td>WebGPU only</td>" : `<td>${(r.jsMs / ms).toFixed(2)}×</td>`);
      table.innerHTML = `<tr><th>x × z · z × y</th><th>JS float64 ms</th><th>fragment ms</th><th>JS / fragment</th><th>compute ms</th><th>JS / compute</th></tr>` +
        rows.map((r) => `<tr><td>${r.x} × ${r.z} · ${r.z} × ${r.y}</td>${f(r.jsMs)}${f(r.fragmentMs)}${ratio(r, r.fragmentMs)}${r.computeMs === null ? "<td>–</td>" : f(r.computeMs)}${ratio(r, r.computeMs)}</tr>`).join("");
    } else if (kind === "sweep") {
      rows = await runSweepBenchmark(gpu, sizes, progress);
      const names = ["sqrt", "sinh", "div", "pow"];
      table.innerHTML = `<tr><th>elements</th>${names.map((n) => `<th>${n} GPU</th><th>${n} JS</th>`).join("")}</tr>` +
        rows.map((r) => `<tr><td>${r.elements}</td>${names.map((n) => e(r[n]) + e(r[`${n}JS`])).join("")}</tr>`).join("");
    } else if (kind === "passes") {
      rows = await runPassesBenchmark(gpu, sizes, progress);
      table.innerHTML = `<tr><th>n</th><th>path</th><th>passes</th><th>ms (with the read-back)</th><th>GFLOPS</th></tr>` +
        rows.map((r) => `<tr><td>${r.n}</td><td>${r.path}</td><td>${r.passes}</td>${f(r.ms)}${f(r.gflops)}</tr>`).join("");
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
      const h100 = $("bench-h100").checked ? await loadRecordedH100() : null;
      plotProducts(plot, rows, gpu.backend, await loadRecordedPeers(), h100);
    }
    const report = { kind, backend: gpu.backend, adapter: gpu.capabilities().adapter, rows };
    $("bench-json").textContent = JSON.stringify(report, null, 2);
    $("bench-status").textContent = `done: ${kind} on ${gpu.backend}, ${navigator.userAgent}`;
    $("bench").dataset.done = "true";
  });
}
