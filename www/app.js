// The page: opens a GPU (WebGPU, else WebGL2), squares and multiplies matrices on it, reads the
// results back and compares them with JavaScript float64 math. `?backend=webgpu|webgl2|auto`
// picks the backend; `?bench` runs the benchmark on load (`&sizes=64,128` to choose sizes).

import { product } from "./products.js";
import { explore, OPERATIONS } from "./explorer.js";
import { measureAccuracy, ULP_FLAG } from "./accuracy.js";
import { runBenchmark, runFunctionBenchmark, runMatvecBenchmark, MATVEC_SIZES } from "./bench.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const fmt = (v, digits = 3) => (Number.isFinite(v) ? v.toPrecision(digits) : String(v));

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
  const warm = gpu.square(gpu.upload(new Float32Array(1), 1, 1));
  await warm.read();
  warm.free();

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
  $("accuracy-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runAccuracy(texla);
  });
  $("bench-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runBench($("bench-kind").value, $("bench-sizes").value);
  });
  $("bench-kind").addEventListener("change", (e) => {
    $("bench-sizes").value = e.target.value === "matvec" ? MATVEC_SIZES.join(",") : e.target.value === "functions" ? "512" : "64,128,256,512,1024";
  });
  if (params.has("bench")) {
    const kind = params.get("bench") || "products";
    $("bench-kind").value = kind;
    $("bench-kind").dispatchEvent(new Event("change"));
    if (params.get("sizes")) $("bench-sizes").value = params.get("sizes");
    await runBench(kind, $("bench-sizes").value);
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
    await product(gpu, out, { m: n, k: n, n, seed, threshold, square: true });
  });
}

async function runMultiply() {
  const out = $("multiply-result");
  await guarded(out, async () => {
    const [m, k, n] = ["m", "k", "n"].map((d) => whole(`multiply-${d}`, d, 1, 4096));
    if (m * k * n > 2 ** 31) throw new Error(`m·k·n = ${m * k * n} is more than this page's float64 reference should take (2^31)`);
    const seed = whole("multiply-seed", "seed", 0, 2 ** 32 - 1);
    const threshold = positive("multiply-threshold", "the highlight threshold");
    await product(gpu, out, { m, k, n, seed, threshold, square: false });
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

/** Runs benchmark `kind` ("products", "functions" or "matvec") and shows its table and JSON. */
async function runBench(kind, sizesText) {
  const table = $("bench-table");
  await guarded($("bench-status"), async () => {
    const sizes = sizesText.split(",").map((s) => Number(s.trim()));
    const max = kind === "matvec" ? 4096 : 2048;
    if (!sizes.length || sizes.some((s) => !Number.isInteger(s) || s < 1 || s > max)) {
      throw new Error(`sizes must be whole numbers from 1 to ${max} separated by commas, got "${sizesText}"`);
    }
    table.innerHTML = "";
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
    } else if (kind === "matvec") {
      rows = await runMatvecBenchmark(gpu, sizes, progress);
      table.innerHTML = `<tr><th>n</th><th>blocked GFLOPS</th><th>naive GFLOPS</th><th>JS float64 GFLOPS</th><th>blocked / naive</th></tr>` +
        rows.map((r) => `<tr><td>${r.n}</td>${f(r.blocked)}${f(r.naive)}${f(r.js)}<td>${(r.blocked / r.naive).toFixed(1)}×</td></tr>`).join("");
    } else {
      rows = await runBenchmark(gpu, sizes, progress);
      table.innerHTML = `<tr><th>n</th><th>square end-to-end</th><th>square resident</th><th>multiply end-to-end</th><th>multiply resident</th><th>JS float64</th><th>best GPU / JS</th></tr>` +
        rows.map((r) => `<tr><td>${r.n}</td>${f(r.squareE2E)}${f(r.squareResident)}${f(r.mulE2E)}${f(r.mulResident)}${f(r.js)}<td>${(Math.max(r.squareResident, r.mulResident) / r.js).toFixed(1)}×</td></tr>`).join("");
    }
    const report = { kind, backend: gpu.backend, adapter: gpu.capabilities().adapter, rows };
    $("bench-json").textContent = JSON.stringify(report, null, 2);
    $("bench-status").textContent = `done: ${kind} on ${gpu.backend}, ${navigator.userAgent}`;
    $("bench").dataset.done = "true";
  });
}

start();
