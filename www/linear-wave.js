// The SIMD-optimization paper's 512 x 512 wave on the page: gpu.wave runs eight generated kernels a step (one per
// quadruple of the 32-cell blocks S*, src/stencil/wave.rs); the heights are read back every frame
// and drawn as a lit height field; a click drops a stone. "Table 4" times a step with and without
// the read-back, natural against optimised packing, beside a JavaScript float64 step
// (www/reference/stencils.js), as the seed's Table 4 does.

import { waveStep } from "./reference/stencils.js";

const SIDE = 512;
const LAMBDA2 = 0.25;

/** Table 4's numbers on `gpu`: ms per step for the natural and optimised orders without and with
 * the read-back (median of `runs` batches of `steps` steps), and the float64 JavaScript step. */
export async function table4(gpu, { side = SIDE, steps = 50, runs = 5 } = {}) {
  const median = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
  const rows = [];
  for (const ordering of ["natural", "optimized"]) {
    const wave = gpu.wave({ side, lines: side, ordering, lambda2: LAMBDA2 });
    await wave.drop(side / 3, side / 2, 1, 6);
    wave.step(2);
    await wave.heights();
    const compute = [];
    const withRead = [];
    for (let r = 0; r < runs; r++) {
      let t = performance.now();
      wave.step(steps);
      await gpu.finish();
      compute.push((performance.now() - t) / steps);
      const n = Math.max(2, Math.floor(steps / 5));
      t = performance.now();
      for (let s = 0; s < n; s++) {
        wave.step(1);
        await wave.heights();
      }
      withRead.push((performance.now() - t) / n);
    }
    rows.push({ ordering, cost: wave.cost(), counts: wave.counts(), ms: median(compute), msRead: median(withRead) });
    wave.free();
  }
  let prev = new Float64Array(side * side);
  let cur = new Float64Array(side * side);
  cur[side * (side / 2) + side / 3] = 1;
  prev = cur.slice();
  const n = 10;
  const t = performance.now();
  for (let s = 0; s < n; s++) [prev, cur] = waveStep(side, side, LAMBDA2, prev, cur);
  rows.push({ ordering: "cpu", ms: (performance.now() - t) / n, msRead: null });
  return rows;
}

const $ = (id) => document.getElementById(id);

/** Draws `h` (side x side heights) into `canvas` as a lit height field: the normal of each cell
 * from its neighbours' heights, lit from the upper left, water-blue. */
function draw(canvas, h, side) {
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(side, side);
  const px = image.data;
  const scale = 6;
  let max = 0;
  for (let j = 0; j < side; j++) {
    for (let i = 0; i < side; i++) {
      const k = i + side * j;
      const dx = (h[i + 1 < side ? k + 1 : k] - h[i > 0 ? k - 1 : k]) * scale;
      const dy = (h[j + 1 < side ? k + side : k] - h[j > 0 ? k - side : k]) * scale;
      const len = Math.hypot(dx, dy, 1);
      const light = Math.max(0, (-dx * 0.5 - dy * 0.5 + 0.7) / len);
      const v = 0.25 + 0.75 * light;
      px[4 * k] = 30 * v;
      px[4 * k + 1] = 110 * v + 60 * h[k];
      px[4 * k + 2] = 200 * v + 40;
      px[4 * k + 3] = 255;
      max = Math.max(max, Math.abs(h[k]));
    }
  }
  ctx.putImageData(image, 0, 0);
  return max;
}

/** Sets up the wave's part of the section in `box`. */
export function initWave(gpu, box, guarded) {
  box.insertAdjacentHTML(
    "beforeend",
    `<h3>The 512 × 512 wave (Table 4)</h3>
    <p>w<sub>k+1</sub> = 2(1 − 2λ²) w<sub>k</sub> + λ² (four neighbours) − w<sub>k−1</sub>, λ² = ¼, zero
    Dirichlet along each row, zero Neumann across rows. Each row is cut into 32-cell blocks S*; quadruple q
    of every block is one texture, updated by one of eight generated kernels a step (S* costs 38
    instructions in the natural packing, 24 in the optimised stride-8 one). The heights are read back
    every frame and drawn here as a lit height field. <b>Click</b> the water to drop a stone.</p>
    <div class="controls">
      <label>packing <select id="linear-wave-order"><option value="optimized">optimised (stride 8)</option><option value="natural">natural</option></select></label>
      <button type="button" id="linear-wave-start">Start the wave</button>
      <button type="button" id="linear-wave-table">Run Table 4</button>
    </div>
    <canvas id="linear-wave" width="${SIDE}" height="${SIDE}" role="img" aria-label="the wave's height field, once started"></canvas>
    <div id="linear-wave-stats" class="status"></div>
    <div class="result" id="linear-wave-result"></div>`,
  );
  let wave = null;
  let frame = 0;
  let running = false;
  const canvas = $("linear-wave");
  canvas.style.maxWidth = "100%";
  canvas.style.cursor = "crosshair";
  const start = async () => {
    wave?.free();
    wave = gpu.wave({ side: SIDE, lines: SIDE, ordering: $("linear-wave-order").value, lambda2: LAMBDA2 });
    await wave.drop(SIDE / 2, SIDE / 2, 1, 8);
    frame = 0;
    if (!running) {
      running = true;
      requestAnimationFrame(tick);
    }
  };
  const tick = async () => {
    if (!wave) return;
    const current = wave;
    try {
      const t = performance.now();
      current.step(4);
      const h = await current.heights();
      const ms = performance.now() - t;
      if (current !== wave) return requestAnimationFrame(tick);
      const max = draw(canvas, h, SIDE);
      frame++;
      canvas.dataset.frame = String(frame);
      canvas.dataset.maxHeight = String(max);
      canvas.setAttribute("aria-label", `the wave's height field, frame ${frame}, largest height ${max.toFixed(3)}`);
      $("linear-wave-stats").textContent = `frame ${frame}: four steps and the read-back of 262,144 heights took ${ms.toFixed(1)} ms; largest height ${max.toFixed(3)}`;
      requestAnimationFrame(tick);
    } catch (e) {
      running = false;
      $("linear-wave-stats").textContent = `the wave stopped: ${e.message ?? e}`;
    }
  };
  $("linear-wave-start").addEventListener("click", () => start());
  $("linear-wave-order").addEventListener("change", () => wave && start());
  canvas.addEventListener("click", async (e) => {
    if (!wave) await start();
    const r = canvas.getBoundingClientRect();
    const x = ((e.clientX - r.left) / r.width) * SIDE;
    const y = ((e.clientY - r.top) / r.height) * SIDE;
    await wave.drop(Math.min(SIDE - 1, Math.max(0, x)), Math.min(SIDE - 1, Math.max(0, y)), 1, 6);
    canvas.dataset.stones = String(Number(canvas.dataset.stones ?? 0) + 1);
  });
  $("linear-wave-table").addEventListener("click", () =>
    guarded($("linear-wave-result"), async () => {
      const rows = await table4(gpu);
      const cpu = rows.find((r) => r.ordering === "cpu");
      const f = (v) => (v === null ? "–" : v.toFixed(v < 10 ? 3 : 1));
      $("linear-wave-result").innerHTML = `<table class="numbers" id="linear-wave-table-4"><tr><th>ms per step</th><th>CPU (JavaScript float64)</th>${rows
        .filter((r) => r.ordering !== "cpu")
        .map((r) => `<th>GPU, ${r.ordering} (S* ${r.cost.sStar}, product ${r.cost.product}; ${r.counts.wgsl.ops} ops, ${r.counts.wgsl.fetches} fetches a step)</th>`)
        .join("")}</tr>
        <tr data-row="total"><td>total (with the read-back of the heights)</td><td>${f(cpu.ms)}</td>${rows.filter((r) => r.ordering !== "cpu").map((r) => `<td>${f(r.msRead)}</td>`).join("")}</tr>
        <tr data-row="compute"><td>no data transfer</td><td>–</td>${rows.filter((r) => r.ordering !== "cpu").map((r) => `<td>${f(r.ms)}</td>`).join("")}</tr></table>`;
    }),
  );
}
