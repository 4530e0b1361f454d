// Squaring and general products on the GPU, compared element by element with float64.

import { mulberry32, randomMatrix, compare, dotErrorBound } from "./reference/products.js";
import { reference } from "./reference/worker-client.js";

const fmt = (v, digits = 3) => (Number.isFinite(v) ? v.toPrecision(digits) : String(v));
const ms = (v) => `${v.toFixed(v < 10 ? 2 : 1)} ms`;

/** A·B (or M·M where `square`) on the GPU by the matmul kernel `kernel`. */
const byKernel = (kernel) => (gpu, a, b, square) => (square ? gpu.square(a, { kernel }) : gpu.matmul(a, b, { kernel }));

/**
 * The kernels that compute a product, side by side: [name, description, call(gpu, a, b, square)],
 * `name` being the kernel option of matmul and square. The compute paths exist on WebGPU only.
 */
export const KERNELS = [
  ["teaching", "teaching fragment kernel: one output texel (4 rows of a column) per fragment, 5 texel fetches per 16 multiply-adds",
    byKernel("teaching")],
  ["fast", "fast fragment kernel: one output texel per render target, up to 8 per fragment, sharing its A texels (4 + 8 fetches per 128 multiply-adds)",
    byKernel("fast")],
  ["compute", "compute path: 16×16 threads per 128×128 block, tiles in workgroup memory, 8×8 outputs per thread",
    byKernel("compute")],
  ["registers", "compute path without workgroup memory: each invocation keeps 16×32 outputs in registers, 48 fetches per 512 multiply-adds of four lanes, no barrier",
    byKernel("registers")],
  ["cpu", "the CPU, no GPU: wasm SIMD, 4×8 outputs in registers over 128 inner indices at a time, of values held on the CPU (a software adapter's default)",
    byKernel("cpu")],
];

/** Computes A·B (or M·M) on the GPU with `kernel` and in float64, and shows the comparison in
 * `out` (then calls `shown()`). Resolves to the rest, `rest(signal)`: the same product with every
 * kernel, timed and checked, side by side, until `signal` is aborted (the reader started another
 * run), the rows left then saying so. */
export async function product(gpu, out, { m, k, n, seed, threshold, square, kernel = "teaching", shown = () => {} }) {
  const next = mulberry32(seed);
  const a = randomMatrix(next, m * k);
  const b = square ? a : randomMatrix(next, k * n);
  const [, description, call] = KERNELS.find(([name]) => name === kernel) ?? KERNELS[0];

  out.innerHTML = `<div class="status">uploading and computing on the GPU…</div>`;
  const t0 = performance.now();
  const ga = gpu.upload(a, m, k);
  const gb = square ? ga : gpu.upload(b, k, n);
  await gpu.finish();
  const t1 = performance.now();
  let gc;
  let compileMs;
  try {
    // A first run builds the kernel's shaders (on a CPU-emulated GPU, up to seconds): done
    // first, said on the page, and never counted as compute.
    compileMs = await compiling(out, `the ${kernel} kernel`, gpu, () => call(gpu, ga, gb, square));
    gc = call(gpu, ga, gb, square);
  } catch (e) {
    [ga, gb].forEach((x) => x.free());
    throw e;
  }
  const t1c = performance.now();
  await gpu.finish();
  const t2 = performance.now();
  const c = await gc.read();
  const t3 = performance.now();
  gc.free();

  out.innerHTML = `<div class="status">computing the float64 reference in JavaScript (${m}×${k} times ${k}×${n})…</div>`;
  let ref;
  try {
    ref = await reference(a, b, m, k, n);
  } catch (e) {
    [ga, gb].forEach((x) => x.free());
    throw e;
  }
  const cmp = compare(c, ref.c, ref.s, k);
  const within = cmp.worstRatio <= 1;
  const gflops = (2 * m * k * n) / ((t2 - t1c) * 1e6);
  const texels = `${n} × ${Math.ceil(m / 4)} texels`;

  out.innerHTML = `
    <div class="summary" id="${out.id}-summary" data-within-bound="${within}" data-max-rel="${cmp.maxRel}" data-max-abs="${cmp.maxAbs}">
      <p>${square ? `R = M·M with n = ${n}` : `C = A·B with m = ${m}, k = ${k}, n = ${n}`}: ${m * n} elements in ${texels}, by the ${description}.</p>
      <p class="${within ? "ok" : "bad"}">${within
        ? `All ${m * n} elements are within the float32 error bound 2(k+2)·2⁻²⁴·Σ|a·b| (worst element at ${fmt(cmp.worstRatio, 2)} of its bound).`
        : `Element (${Math.floor(cmp.worstIndex / n)}, ${cmp.worstIndex % n}) is ${fmt(cmp.worstRatio, 3)} times its float32 error bound: the GPU result is wrong.`}</p>
      <table class="numbers">
        <tr><th>max absolute error</th><td>${fmt(cmp.maxAbs)}</td></tr>
        <tr><th>max relative error (to max |result| = ${fmt(cmp.scale)})</th><td>${fmt(cmp.maxRel)}</td></tr>
        <tr><th>GPU upload</th><td>${ms(t1 - t0)}</td></tr>
        <tr data-part="compile" data-ms="${compileMs}"><th>building the shaders (a first run, not counted)</th><td>${ms(compileMs)}</td></tr>
        <tr data-part="compute" data-ms="${t2 - t1c}"><th>GPU compute</th><td>${ms(t2 - t1c)} (${fmt(gflops)} GFLOPS)</td></tr>
        <tr><th>GPU read-back</th><td>${ms(t3 - t2)}</td></tr>
        <tr><th>GPU total (without building the shaders)</th><td>${ms(t3 - t0 - compileMs)}</td></tr>
        <tr><th>JavaScript float64</th><td>${ms(ref.ms)}</td></tr>
      </table>
      <table class="numbers kernels" id="${out.id}-kernels"><caption>The same product by each kernel (after one warm-up run each)</caption>
        <tr><th>kernel</th><th>compute</th><th>GFLOPS</th><th>worst element / bound</th></tr>
        <tr><td colspan="4">timing…</td></tr></table>
    </div>
    <div class="result-grid">
      <table class="numbers samples" id="${out.id}-table"></table>
      <div class="heatmap"><figure><canvas id="${out.id}-heatmap" role="img" aria-label="heatmap of each element's error as a fraction of its bound"></canvas>
        <figcaption>Error of every element as a fraction of its bound, on a log scale: black at 10⁻⁴ or less, yellow at the bound, red beyond it.</figcaption></figure></div>
    </div>`;
  sampleTable(document.getElementById(`${out.id}-table`), c, ref.c, m, n, cmp.worstIndex, threshold, seed);
  heatmap(document.getElementById(`${out.id}-heatmap`), c, ref.c, ref.s, m, n, k);
  shown();
  return (signal) => kernelsTable(gpu, document.getElementById(`${out.id}-kernels`), { ga, gb, ref, m, k, n, square }, signal);
}

/** Every kernel on the product's inputs, in `table`: its time (after a warm-up run, which builds
 * its pipeline) and its worst element against the same float64 bound; frees the inputs. Once
 * `signal` is aborted (another run started, beside it) it times no more: the kernel under way
 * and those left say so. */
async function kernelsTable(gpu, table, { ga, gb, ref, m, k, n, square }, signal) {
  table.querySelectorAll("tr:not(:first-child)").forEach((tr) => tr.remove());
  const row = (name, what, cells, attributes = "") => {
    table.querySelector("tr.pending")?.remove();
    table.insertAdjacentHTML("beforeend", `<tr data-kernel="${name}" ${attributes}><td title="${what}">${name}</td>${cells}</tr>`);
  };
  const notTimed = (name, what) => row(name, what, `<td colspan="3">not timed: another run came first</td>`, "data-not-timed");
  signal.addEventListener("abort", () => {
    const pending = table.querySelector("tr.pending td.status");
    if (pending) pending.textContent = "stopping: another run came first";
  });
  try {
    for (const [name, what, run] of KERNELS) {
      if ((name === "compute" || name === "registers") && gpu.backend !== "webgpu") {
        row(name, what, `<td colspan="3">WebGPU only (WebGL2 has no compute shaders)</td>`);
      } else if (name === "cpu" && gpu.capabilities().matmulKernel !== "cpu") {
        row(name, what, `<td colspan="3">software adapters only (here uploads hold no copy on the CPU)</td>`);
      } else if (signal.aborted) {
        notTimed(name, what);
      } else {
        table.insertAdjacentHTML("beforeend", `<tr class="pending" data-kernel="${name}"><td title="${what}">${name}</td><td colspan="3" class="status" data-compiling>building the shaders…</td></tr>`);
        run(gpu, ga, gb, square).free();
        await gpu.finish();
        if (signal.aborted) {
          notTimed(name, what);
          continue;
        }
        const pending = table.querySelector("tr.pending td.status");
        delete pending.dataset.compiling;
        pending.textContent = "timing…";
        const s0 = performance.now();
        const r = run(gpu, ga, gb, square);
        await gpu.finish();
        const s1 = performance.now();
        const got = await r.read();
        r.free();
        const worst = compare(got, ref.c, ref.s, k).worstRatio;
        // A time taken while another run shared the GPU is not this kernel's.
        if (signal.aborted) notTimed(name, what);
        else row(name, what, `<td>${ms(s1 - s0)}</td><td>${fmt((2 * m * k * n) / ((s1 - s0) * 1e6))}</td><td class="${worst <= 1 ? "ok" : "bad"}">${fmt(worst, 2)}</td>`, `data-within-bound="${worst <= 1}"`);
      }
    }
  } catch (e) {
    const cell = table.insertRow().insertCell();
    Object.assign(cell, { colSpan: 4, className: "error", textContent: e.message ?? String(e) });
  } finally {
    table.querySelector("tr.pending")?.remove();
    [ga, gb].forEach((x) => x.free());
  }
  table.dataset.done = "true";
}

/**
 * Runs `first` (a first run, which builds the shaders of `what`), saying so in `out` while it
 * compiles (`data-compiling`), frees its result and resolves to the milliseconds it took (the
 * shaders' building, plus one run), which no timing shown counts.
 */
async function compiling(out, what, gpu, first) {
  const t = performance.now();
  out.innerHTML = `<div class="status" data-compiling>building the shaders of ${what} on your GPU (only the first run compiles them)…</div>`;
  first().free();
  await gpu.finish();
  out.innerHTML = `<div class="status">computing on the GPU…</div>`;
  return performance.now() - t;
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
export function heatmap(canvas, gpuC, exact, sums, m, n, k) {
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

