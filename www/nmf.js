// The thesis's NMF (the thesis's Figure 10 as a view): F = 19 x 19 images as columns, factorised
// on the GPU as U Vᵀ; U's columns are basis images, U Vᵀ's columns the reconstructions, drawn as
// the iterations run. The images are generated (parts plus noise) or the user's own files.
// "Check" runs the same 2 iterations in JavaScript float64 from the same start.

import { nmfReference, partsImages } from "./reference/worker-client.js";
import { whole } from "./fields.js";

const $ = (id) => document.getElementById(id);
const SIDE = 19;
const PIXELS = SIDE * SIDE;
/** Basis images and faces drawn. */
const SHOWN = 8;

/** Sets up the NMF section on `gpu`. */
export function initNmf(gpu, texla, guarded) {
  let own = null; // the user's images: Float32Array, PIXELS x count, and the count
  let generated = null; // the generated images of the last run (made in the reference worker)
  let controller = null;
  $("nmf-files").addEventListener("change", async (e) => {
    const out = $("nmf-result");
    try {
      own = await readImages([...e.target.files]);
      $("nmf-source").textContent = `${own.count} of your images, scaled to 19 × 19 grey levels`;
    } catch (err) {
      own = null;
      out.replaceChildren(Object.assign(document.createElement("div"), { className: "error", textContent: err.message }));
    }
  });
  $("nmf-cancel").addEventListener("click", () => controller?.abort());
  $("nmf-form").addEventListener("submit", (e) => {
    e.preventDefault();
    guarded($("nmf-result"), async () => {
      const count = own ? own.count : whole("nmf-images", "images", 1, 4096);
      const k = whole("nmf-k", "k", 1, Math.min(PIXELS, count));
      const iterations = whole("nmf-iterations", "iterations", 1, 100000);
      const every = whole("nmf-every", "draw every", 1, iterations);
      if (!own && generated?.count !== count) generated = { count, data: await partsImages(count, 1) };
      const images = own ? own.data : generated.data;
      const options = { rule: $("nmf-rule").value, order: $("nmf-order").value, normalize: $("nmf-normalize").checked };
      controller = new AbortController();
      $("nmf-cancel").disabled = false;
      try {
        await run(gpu, images, count, k, iterations, every, options, controller.signal);
      } finally {
        $("nmf-cancel").disabled = true;
      }
    });
  });
}

/** Factorises in chunks of `every` iterations, drawing U and U Vᵀ after each. */
async function run(gpu, images, count, k, iterations, every, options, signal) {
  const f = gpu.upload(images, PIXELS, count);
  const rows = [];
  const start = await gpu.nmf(f, k, { ...options, iterations: 1, checkEvery: 1, seed: 1 });
  const u0 = await start.u.read(), v0 = await start.v.read();
  let [u, v, done, ms] = [start.u, start.v, 1, start.msPerIteration];
  rows.push([0, start.errors[0]], [1, start.errors[1]]);
  const check = checkFloat64(images, count, k, u0, v0, options);
  while (done < iterations && !signal.aborted) {
    const step = Math.min(every, iterations - done);
    const r = await gpu.nmf(f, k, { ...options, iterations: step, checkEvery: step, u0: u, v0: v, signal });
    u.free(); v.free();
    [u, v] = [r.u, r.v];
    ms = r.msPerIteration;
    done += r.iterations;
    rows.push([done, r.errors.at(-1)]);
    draw(images, count, k, await u.read(), await v.read(), done);
    $("nmf-progress").value = done / iterations;
  }
  const checked = await check(gpu, f);
  $("nmf-result").innerHTML = `<table class="numbers" id="nmf-table">
    <tr><th>iterations</th><th>‖F − UVᵀ‖²</th></tr>
    ${rows.map(([i, e]) => `<tr><td>${i}</td><td>${e.toExponential(4)}</td></tr>`).join("")}
    </table>
    <p id="nmf-summary" data-iterations="${done}" data-diff="${checked.worst}">${done} iterations of ${PIXELS} × ${count}, k = ${k}: ${ms.toFixed(1)} ms an iteration on the GPU
    (the thesis: 100 ms on its GPU, 162 ms with MKL, at 361 × 1024, k = 144). Float64 check, 2 iterations from the
    same start in JavaScript (${checked.jsMs.toFixed(0)} ms each): max |U − float64| ${checked.worst.toExponential(2)}
    of max U ${checked.scale.toExponential(2)}; ‖F − UVᵀ‖² ${checked.gpuError.toExponential(6)} on the GPU,
    ${checked.error64.toExponential(6)} in float64.</p>`;
  u.free(); v.free(); f.free();
}

/** The same 2 iterations from (u0, v0) in float64 and on the GPU: their largest difference. */
function checkFloat64(images, count, k, u0, v0, options) {
  return async (gpu, f) => {
    const [U0, V0] = [gpu.upload(u0, PIXELS, k), gpu.upload(v0, count, k)];
    const r = await gpu.nmf(f, k, { ...options, iterations: 2, checkEvery: 2, u0: U0, v0: V0 });
    const got = await r.u.read();
    // In the reference worker: 2 iterations at 361 x 1024, k = 144 took 3 s here, too long to
    // hold the page.
    const exact = await nmfReference(Float64Array.from(images), Float64Array.from(u0), Float64Array.from(v0), PIXELS, count, k, { ...options, iterations: 2 });
    let [worst, scale] = [0, 0];
    exact.u.forEach((x, i) => { worst = Math.max(worst, Math.abs(got[i] - x)); scale = Math.max(scale, Math.abs(x)); });
    [U0, V0, r.u, r.v].forEach((m) => m.free());
    return { worst, scale, jsMs: exact.ms, error64: exact.error, gpuError: r.errors.at(-1) };
  };
}

/** Draws the first basis images (columns of U) and the first images beside their U Vᵀ. */
function draw(images, count, k, u, v, done) {
  const canvas = $("nmf-view");
  const scale = 4, gap = 4, cell = SIDE * scale + gap;
  canvas.width = SHOWN * cell;
  canvas.height = 3 * cell + 14;
  const g = canvas.getContext("2d");
  g.fillStyle = "#fff";
  g.fillRect(0, 0, canvas.width, canvas.height);
  const put = (pixel, x0, y0) => {
    let hi = 0;
    for (let p = 0; p < PIXELS; p++) hi = Math.max(hi, pixel(p));
    const img = g.createImageData(SIDE * scale, SIDE * scale);
    for (let p = 0; p < PIXELS; p++) {
      const grey = hi > 0 ? Math.round((255 * pixel(p)) / hi) : 0;
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) {
          const o = 4 * (((Math.floor(p / SIDE) * scale + dy) * SIDE * scale) + (p % SIDE) * scale + dx);
          img.data.set([grey, grey, grey, 255], o);
        }
      }
    }
    g.putImageData(img, x0, y0);
  };
  for (let c = 0; c < Math.min(SHOWN, k); c++) put((p) => u[p * k + c], c * cell, 0);
  for (let j = 0; j < Math.min(SHOWN, count); j++) {
    put((p) => images[p * count + j], j * cell, cell);
    put((p) => { let s = 0; for (let c = 0; c < k; c++) s += u[p * k + c] * v[j * k + c]; return s; }, j * cell, 2 * cell);
  }
  g.fillStyle = "#333";
  g.font = "11px sans-serif";
  g.fillText(`rows: basis images (U), images (F), reconstructions (U Vᵀ) after ${done} iterations`, 2, 3 * cell + 10);
  canvas.dataset.iterations = done;
}

/** The user's image files as F (PIXELS x count): each scaled to 19 x 19 and made grey. */
async function readImages(files) {
  if (files.length === 0) throw new Error("no image chosen");
  const canvas = new OffscreenCanvas(SIDE, SIDE);
  const g = canvas.getContext("2d", { willReadFrequently: true });
  const data = new Float32Array(PIXELS * files.length);
  for (const [j, file] of files.entries()) {
    let bitmap;
    try {
      bitmap = await createImageBitmap(file);
    } catch {
      throw new Error(`"${file.name}" is not an image this browser can read`);
    }
    g.drawImage(bitmap, 0, 0, SIDE, SIDE);
    const rgba = g.getImageData(0, 0, SIDE, SIDE).data;
    for (let p = 0; p < PIXELS; p++) {
      data[p * files.length + j] = (0.299 * rgba[4 * p] + 0.587 * rgba[4 * p + 1] + 0.114 * rgba[4 * p + 2]) / 255;
    }
  }
  return { data, count: files.length };
}
