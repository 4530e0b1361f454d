// The page: opens a GPU (WebGPU, else WebGL2), squares and multiplies matrices on it, reads the
// results back and compares them with JavaScript float64 math. `?backend=webgpu|webgl2|auto`
// picks the backend; `?bench` runs the benchmark on load (`&sizes=64,128` to choose sizes).

import { mulberry32, randomMatrix, compare, dotErrorBound } from "./reference.js";
import { reference } from "./worker-client.js";
import { runBenchmark } from "./bench.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const fmt = (v, digits = 3) => (Number.isFinite(v) ? v.toPrecision(digits) : String(v));
const ms = (v) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;

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
  $("bench-form").addEventListener("submit", (e) => {
    e.preventDefault();
    runBench($("bench-sizes").value);
  });
  if (params.has("bench")) {
    if (params.get("sizes")) $("bench-sizes").value = params.get("sizes");
    await runBench($("bench-sizes").value);
  } else {
    await runSquare();
  }
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
    await product(out, { m: n, k: n, n, seed, threshold, square: true });
  });
}

async function runMultiply() {
  const out = $("multiply-result");
  await guarded(out, async () => {
    const [m, k, n] = ["m", "k", "n"].map((d) => whole(`multiply-${d}`, d, 1, 4096));
    if (m * k * n > 2 ** 31) throw new Error(`m·k·n = ${m * k * n} is more than this page's float64 reference should take (2^31)`);
    const seed = whole("multiply-seed", "seed", 0, 2 ** 32 - 1);
    const threshold = positive("multiply-threshold", "the highlight threshold");
    await product(out, { m, k, n, seed, threshold, square: false });
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
    busy = false;
    document.querySelectorAll("button").forEach((b) => (b.disabled = false));
  }
}

function status(out, text) {
  out.innerHTML = `<div class="status">${text}</div>`;
}

/** Computes A·B (or M·M) on the GPU and in float64, and shows the comparison in `out`. */
async function product(out, { m, k, n, seed, threshold, square }) {
  const next = mulberry32(seed);
  const a = randomMatrix(next, m * k);
  const b = square ? a : randomMatrix(next, k * n);

  status(out, "uploading and computing on the GPU…");
  const t0 = performance.now();
  const ga = gpu.upload(a, m, k);
  const gb = square ? ga : gpu.upload(b, k, n);
  await gpu.finish();
  const t1 = performance.now();
  const gc = square ? gpu.square(ga) : gpu.matmul(ga, gb);
  await gpu.finish();
  const t2 = performance.now();
  const c = await gc.read();
  const t3 = performance.now();
  [ga, gb, gc].forEach((x) => x.free());

  status(out, `computing the float64 reference in JavaScript (${m}×${k} times ${k}×${n})…`);
  const ref = await reference(a, b, m, k, n);
  const cmp = compare(c, ref.c, ref.s, k);
  const within = cmp.worstRatio <= 1;
  const gflops = (2 * m * k * n) / ((t2 - t1) * 1e6);
  const texels = `${n} × ${Math.ceil(m / 4)} texels`;

  out.innerHTML = `
    <div class="summary" id="${out.id}-summary" data-within-bound="${within}" data-max-rel="${cmp.maxRel}" data-max-abs="${cmp.maxAbs}">
      <p>${square ? `R = M·M with n = ${n}` : `C = A·B with m = ${m}, k = ${k}, n = ${n}`}: ${m * n} elements in ${texels}.</p>
      <p class="${within ? "ok" : "bad"}">${within
        ? `All ${m * n} elements are within the float32 error bound 2(k+2)·2⁻²⁴·Σ|a·b| (worst element at ${fmt(cmp.worstRatio, 2)} of its bound).`
        : `Element (${Math.floor(cmp.worstIndex / n)}, ${cmp.worstIndex % n}) is ${fmt(cmp.worstRatio, 3)} times its float32 error bound: the GPU result is wrong.`}</p>
      <table class="numbers">
        <tr><th>max absolute error</th><td>${fmt(cmp.maxAbs)}</td></tr>
        <tr><th>max relative error (to max |result| = ${fmt(cmp.scale)})</th><td>${fmt(cmp.maxRel)}</td></tr>
        <tr><th>GPU upload</th><td>${ms(t1 - t0)}</td></tr>
        <tr><th>GPU compute</th><td>${ms(t2 - t1)} (${fmt(gflops)} GFLOPS)</td></tr>
        <tr><th>GPU read-back</th><td>${ms(t3 - t2)}</td></tr>
        <tr><th>GPU total</th><td>${ms(t3 - t0)}</td></tr>
        <tr><th>JavaScript float64</th><td>${ms(ref.ms)}</td></tr>
      </table>
    </div>
    <div class="result-grid">
      <table class="numbers samples" id="${out.id}-table"></table>
      <div class="heatmap"><figure><canvas id="${out.id}-heatmap"></canvas>
        <figcaption>Error of every element as a fraction of its bound, on a log scale: black at 10⁻⁴ or less, yellow at the bound, red beyond it.</figcaption></figure></div>
    </div>`;
  sampleTable($(`${out.id}-table`), c, ref.c, m, n, cmp.worstIndex, threshold, seed);
  heatmap($(`${out.id}-heatmap`), c, ref.c, ref.s, m, n, k);
}

/** A table of sample elements: corners, diagonal, the worst one and a few random ones. */
function sampleTable(table, gpuC, exact, m, n, worst, threshold, seed) {
  const picks = new Set([0, n - 1, (m - 1) * n, m * n - 1, worst]);
  for (let d = 1; d < Math.min(m, n) && picks.size < 9; d += Math.max(1, Math.floor(Math.min(m, n) / 4))) picks.add(d * n + d);
  const next = mulberry32(seed ^ 0x5eed);
  while (picks.size < Math.min(16, m * n)) picks.add(Math.floor(next() * m * n));
  const rows = [...picks].sort((x, y) => x - y).map((idx) => {
    const [i, j] = [Math.floor(idx / n), idx % n];
    const err = Math.abs(gpuC[idx] - exact[idx]);
    const rel = exact[idx] !== 0 ? err / Math.abs(exact[idx]) : err;
    const flagged = !(rel <= threshold);
    return `<tr class="${flagged ? "flagged" : ""}"><td>${i}</td><td>${j}</td><td>${gpuC[idx].toPrecision(9)}</td><td>${exact[idx].toPrecision(17)}</td><td>${fmt(rel)}</td></tr>`;
  });
  table.innerHTML = `<tr><th>i</th><th>j</th><th>GPU float32</th><th>JS float64</th><th>relative error</th></tr>${rows.join("")}`;
}

/** Paints |error| / bound of every element, downsampled (max per block) to at most 256 × 256. */
function heatmap(canvas, gpuC, exact, sums, m, n, k) {
  const w = Math.min(n, 256);
  const h = Math.min(m, 256);
  canvas.width = w;
  canvas.height = h;
  const worst = new Float64Array(w * h);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      const idx = i * n + j;
      const err = Math.abs(gpuC[idx] - exact[idx]);
      const r = Number.isNaN(err) ? Infinity : err === 0 ? 0 : err / dotErrorBound(k, sums[idx]);
      const cell = Math.floor((i * h) / m) * w + Math.floor((j * w) / n);
      worst[cell] = Math.max(worst[cell], r);
    }
  }
  const ctx = canvas.getContext("2d");
  const img = ctx.createImageData(w, h);
  worst.forEach((r, p) => {
    // Log scale: 1e-4 of the bound or less is black, the bound itself is yellow.
    const t = r > 0 ? Math.min(1, Math.max(0, (Math.log10(r) + 4) / 4)) : 0;
    const px = r > 1 ? [220, 20, 30] : [255 * t, 220 * t, 40 * t];
    img.data.set([...px, 255], 4 * p);
  });
  ctx.putImageData(img, 0, 0);
}

async function runBench(sizesText) {
  const table = $("bench-table");
  await guarded($("bench-status"), async () => {
    const sizes = sizesText.split(",").map((s) => Number(s.trim()));
    if (!sizes.length || sizes.some((s) => !Number.isInteger(s) || s < 1 || s > 2048)) {
      throw new Error(`sizes must be whole numbers from 1 to 2048 separated by commas, got "${sizesText}"`);
    }
    table.innerHTML = "";
    $("bench-json").textContent = "";
    delete $("bench").dataset.done;
    const rows = await runBenchmark(gpu, sizes, (text) => ($("bench-status").textContent = `running: ${text}…`));
    const cell = (v) => `<td>${v.toFixed(2)}</td>`;
    table.innerHTML = `<tr><th>n</th><th>square end-to-end</th><th>square resident</th><th>multiply end-to-end</th><th>multiply resident</th><th>JS float64</th><th>best GPU / JS</th></tr>` +
      rows.map((r) => `<tr><td>${r.n}</td>${cell(r.squareE2E)}${cell(r.squareResident)}${cell(r.mulE2E)}${cell(r.mulResident)}${cell(r.js)}<td>${(Math.max(r.squareResident, r.mulResident) / r.js).toFixed(1)}×</td></tr>`).join("");
    const report = { backend: gpu.backend, adapter: gpu.capabilities().adapter, unit: "GFLOPS", rows };
    $("bench-json").textContent = JSON.stringify(report, null, 2);
    $("bench-status").textContent = `done: GFLOPS on ${gpu.backend}, ${navigator.userAgent}`;
    $("bench").dataset.done = "true";
  });
}

start();
