// The SIMD-optimization paper's linear expressions as a view: an example y = A x + b drawn before and after the
// optimiser's reordering as the paper's figures draw them (non-zeros filled, 4 x 4 blocks
// outlined), the cost before -> after and the start that won, the annealing curves (Fig. 8), the
// generated kernel, gpu.linear checked against float64 A x + b, an autotune that times the
// candidate orders on this GPU, and the Runge-Kutta cars (linear-cars.js).

import { mulberry32, randomMatrix, dotErrorBound } from "./reference/products.js";
import { whole } from "./fields.js";
import { startCars } from "./linear-cars.js";
import { initPoisson } from "./linear-poisson.js";
import { initWave } from "./linear-wave.js";

const $ = (id) => document.getElementById(id);

/** The paper's order of the 2D S block (§1.5, Fig. 10): x~ = (x4, x7, x0, x3), x^ = (x1, x5, x6, x2). */
const PAPER_2D = [4, 7, 0, 3, 1, 5, 6, 2];
/** Columns of x in the float64 check and in the autotune's timings. */
const CHECK_COLS = 8;
const TUNE_COLS = 1024;

const EXAMPLES = {
  "rk-cars": "the Runge-Kutta five-car system, 20 × 20 (Fig. 2)",
  "poisson-2d-s": "the 2D S block, 8 × 8, in the paper's order (Fig. 10)",
  "poisson-3d-s": "the 3D S block, 40 × 40 (Fig. 13)",
  "wave-s-star": "the wave sub-block S*, 32 × 32 (Fig. 14)",
  random: "a random sparse 32 × 32 with b (15% non-zero)",
};

/** What the section last showed: the example and its candidate orders (for the autotune). */
let current = null;
let cars = null;

/** Sets up the section on `gpu`. */
export function initLinear(gpu, texla, guarded, shown) {
  const select = $("linear-example");
  for (const [key, label] of Object.entries(EXAMPLES)) select.add(new Option(label, key));
  $("linear-form").addEventListener("submit", (e) => {
    e.preventDefault();
    shown("linear", () => guarded($("linear-result"), () => run(gpu, texla)));
  });
  $("linear-autotune").addEventListener("click", () => guarded($("linear-tune"), () => autotune(gpu)));
  $("linear-cars-pause").addEventListener("click", () => cars?.toggle());
  initPoisson(gpu, $("linear-stencils"), guarded);
  initWave(gpu, $("linear-stencils"), guarded);
}

/** Builds the example, optimises it and shows everything but the autotune; starts the cars. */
async function run(gpu, texla) {
  const name = $("linear-example").value;
  const seed = whole("linear-seed", "seed", 0, 2 ** 32 - 1);
  const moves = whole("linear-moves", "moves", 0, 1_000_000);
  const expr = name === "random" ? randomSparse(texla, 32, 0.15, seed) : texla.LinearExpr.example(name);
  const t = performance.now();
  const found = expr.optimize({ seed, moves, history: true });
  const ms = performance.now() - t;
  const annealed = expr.permute(found.permutation);
  // The 2D S block is shown in the paper's own order; the annealer's result is reported beside.
  const after = name === "poisson-2d-s" ? expr.permute(PAPER_2D) : annealed;
  const m = expr.size;
  drawMatrix($("linear-before"), expr, "natural order");
  drawMatrix($("linear-after"), after, name === "poisson-2d-s" ? "the paper's order" : "optimised order");
  drawCurves($("linear-curve"), found.curves, found.cost);
  const slab = Math.ceil(m / 4);
  const candidates = [
    ["natural", expr],
    [name === "poisson-2d-s" ? "the paper's order" : `optimised (${found.foundBy})`, after],
    ["red-black (stride 2)", expr.permute(stride(m, 2))],
    ...(slab > 2 && slab < m ? [[`slabs (stride ${slab})`, expr.permute(stride(m, slab))]] : []),
  ];
  // A stride order equal to one before it (the optimiser often picks a stride) is timed once.
  const seen = new Set();
  const fresh = ([, e], k) => {
    const key = String(e.permutation);
    const again = k >= 2 && seen.has(key);
    seen.add(key);
    return !again;
  };
  current = { name, candidates: candidates.filter(fresh) };
  $("linear-tune").replaceChildren();
  $("linear-shader").textContent = after.shader(gpu.backend === "webgpu" ? "wgsl" : "glsl");
  $("linear-shader-note").textContent = `the ${gpu.backend === "webgpu" ? "WGSL" : "GLSL ES 3.00"} kernel that gpu.linear runs for the ${name === "poisson-2d-s" ? "paper's" : "optimised"} order: ${after.instructions().length} four-wide instructions, the coefficients baked in as literals`;
  const checks = [];
  for (const [label, e] of [["natural", expr], [name === "poisson-2d-s" ? "the paper's" : "optimised", after]]) checks.push({ label, ...(await check(gpu, expr, e)) });
  const ok = checks.every((c) => c.ratio <= 1);
  const paper = name === "poisson-2d-s" ? ` The paper's order costs ${after.cost()}; the annealer found ${found.cost} (${found.foundBy}).` : "";
  const summary = Object.assign(document.createElement("p"), { id: "linear-summary" });
  Object.assign(summary.dataset, { before: expr.cost(), after: after.cost(), withinBound: String(ok), worstRatio: Math.max(...checks.map((c) => c.ratio)) });
  summary.textContent = `${EXAMPLES[name]}: cost ${expr.cost()} → ${after.cost()} four-wide instructions ` +
    `(${found.foundBy === "identity" ? "no cheaper order found" : `the winner: ${found.foundBy}`}; ${moves} moves over 8 restarts in ${ms.toFixed(0)} ms).${paper} ` +
    `gpu.linear against float64 A x + b on ${m} × ${CHECK_COLS} random x: ` +
    checks.map((c) => `${c.label} order max error ${c.maxAbs.toExponential(2)}, ${c.ratio.toFixed(3)} of the bound 2(k+2)·2⁻²⁴·(Σ|aᵢⱼxⱼ| + |bᵢ|), k = ${m + 1}`).join("; ") +
    `. ${ok ? "Every element is within the bound." : "SOME ELEMENTS ARE OUTSIDE THE BOUND."}`;
  summary.className = ok ? "" : "bad";
  $("linear-result").replaceChildren(summary);
  await restartCars(gpu, texla, seed);
}

/** The Runge-Kutta cars, always on the RK expression in its optimised order. */
async function restartCars(gpu, texla, seed) {
  cars?.stop();
  const rk = texla.LinearExpr.example("rk-cars");
  const found = rk.optimize({ seed, moves: 40_000 });
  cars = startCars(gpu, rk, rk.permute(found.permutation));
}

/** gpu.linear(e, x) against float64 A x + b of `original` (x in the original order). */
async function check(gpu, original, e) {
  const m = original.size;
  const next = mulberry32(7);
  const x = randomMatrix(next, m * CHECK_COLS);
  const a = original.matrix();
  const b = original.b() ?? new Float64Array(m);
  const X = gpu.upload(x, m, CHECK_COLS);
  const Y = gpu.linear(e, X);
  const y = await Y.read();
  X.free();
  Y.free();
  let [maxAbs, ratio] = [0, 0];
  for (let i = 0; i < m; i++) {
    for (let c = 0; c < CHECK_COLS; c++) {
      let [sum, abs] = [b[i], Math.abs(b[i])];
      for (let j = 0; j < m; j++) {
        sum += a[i * m + j] * x[j * CHECK_COLS + c];
        abs += Math.abs(a[i * m + j] * x[j * CHECK_COLS + c]);
      }
      const err = Math.abs(y[i * CHECK_COLS + c] - sum);
      maxAbs = Math.max(maxAbs, Number.isFinite(err) ? err : Infinity);
      ratio = Math.max(ratio, err === 0 ? 0 : err / dotErrorBound(m + 1, abs));
    }
  }
  return { maxAbs, ratio };
}

/** Times gpu.linear for each candidate order (median of 7 runs of 10 passes each), keeps the fastest. */
async function autotune(gpu) {
  if (!current) throw new Error("show an example first (the button above)");
  cars?.pause();
  try {
    const m = current.candidates[0][1].size;
    const X = gpu.upload(randomMatrix(mulberry32(3), m * TUNE_COLS), m, TUNE_COLS);
    // Each candidate compiled first, then timed in turns (so that a drift in the GPU's speed
    // touches all alike): 7 runs of 10 passes each, the median kept.
    const rows = current.candidates.map(([label, e]) => ({ label, e, cost: e.cost(), times: [] }));
    for (const r of rows) gpu.linear(r.e, X).free();
    await gpu.finish();
    for (let run = 0; run < 7; run++) {
      for (const r of rows) {
        const t = performance.now();
        for (let i = 0; i < 10; i++) gpu.linear(r.e, X).free();
        await gpu.finish();
        r.times.push((performance.now() - t) / 10);
      }
    }
    for (const r of rows) r.ms = r.times.sort((p, q) => p - q)[3];
    X.free();
    const best = rows.reduce((p, q) => (q.ms < p.ms ? q : p));
    const [natural, optimised] = rows;
    const table = document.createElement("table");
    table.className = "numbers";
    table.id = "linear-tune-table";
    table.innerHTML = `<caption>gpu.linear on ${m} × ${TUNE_COLS} (every column one vector), median of 7 runs of 10 passes</caption>` +
      `<tr><th>order</th><th>cost (instructions)</th><th>ms a pass</th><th>vs natural</th><th>kernel: ops / texel fetches, all cases (WGSL; GLSL)</th></tr>` +
      rows.map((r) => `<tr data-order="${r.label}"${r === best ? ' class="best"' : ""}><td>${r.label}${r === best ? " (kept)" : ""}</td><td>${r.cost}</td><td>${r.ms.toFixed(3)}</td><td>${(r.ms / natural.ms).toFixed(2)}×</td><td>${counted(r.e)}</td></tr>`).join("");
    const verdict = document.createElement("p");
    verdict.id = "linear-tune-verdict";
    verdict.textContent = tuneVerdict(natural, optimised, best, current.name === "rk-cars");
    current.kept = best;
    $("linear-shader").textContent = best.e.shader(gpu.backend === "webgpu" ? "wgsl" : "glsl");
    $("linear-shader-note").textContent = `the kernel kept by the autotune (${best.label}): ${best.cost} four-wide instructions`;
    $("linear-tune").replaceChildren(table, verdict);
    if (current.name === "rk-cars") cars?.use(best.e, best.label);
  } finally {
    cars?.resume();
  }
}

/** The kernel's ops and texel fetches, counted in its WGSL and GLSL text. */
function counted(e) {
  const c = e.counts();
  return `${c.wgsl.ops} / ${c.wgsl.fetches}; ${c.glsl.ops} / ${c.glsl.fetches}`;
}

/** What the timings say, plainly; differences under 10% are called noise. */
function tuneVerdict(natural, optimised, best, cars) {
  const ratio = optimised.ms / natural.ms;
  const kept = `The fastest here is ${best.label}, kept: the shader shown is its kernel${cars ? ", and the cars step with it" : ""}.`;
  const times = `The ${optimised.label.startsWith("the paper") ? "paper's" : "optimised"} order (${optimised.cost} four-wide instructions against ${natural.cost}) takes ${ratio.toFixed(2)}× the natural order's time`;
  if (Math.abs(ratio - 1) < 0.1) {
    return `${kept} ${times}: within this page's timing noise (10%), so packing does not pay on this GPU. ` +
      "That is a finding, not a failure: the instruction count of the paper's four-wide model is not what limits this GPU.";
  }
  if (ratio > 1) {
    return `${kept} ${times}: packing does not pay on this GPU. ` +
      "That is a finding, not a failure: the instruction count of the paper's four-wide model is not what limits this GPU.";
  }
  if (best === optimised) return `${kept} ${times}: packing pays on this GPU.`;
  return `${kept} ${times}, but ${best.label} (${best.cost} instructions) is faster still: packing pays, though the fewest instructions are not the fastest kernel here.`;
}

/** The stride-s order (the Rust `stride_permutation`): indices sorted by (i mod s, i div s). */
function stride(m, s) {
  return Array.from({ length: m }, (_, i) => i).sort((p, q) => p % s - q % s || Math.floor(p / s) - Math.floor(q / s));
}

/** A random sparse m x m expression with b, from texla's mulberry32. */
function randomSparse(texla, m, density, seed) {
  const next = mulberry32(seed);
  const a = new Float64Array(m * m).map(() => (next() < density ? 2 * next() - 1 : 0));
  const b = Float64Array.from({ length: m }, () => 2 * next() - 1);
  return texla.LinearExpr.fromDense(a, m, b);
}

/** Draws [A | b] of `e` as the seed's figures do: non-zeros filled, 4 x 4 blocks outlined. */
function drawMatrix(canvas, e, what) {
  const m = e.size;
  const a = e.matrix();
  const b = e.b();
  const cell = Math.max(5, Math.min(20, Math.floor(320 / m)));
  const gap = b ? cell : 0;
  const cols = m + (b ? 1 : 0);
  canvas.width = cols * cell + gap + 2;
  canvas.height = m * cell + 2;
  const g = canvas.getContext("2d");
  g.fillStyle = "#fff";
  g.fillRect(0, 0, canvas.width, canvas.height);
  let nonzeros = 0;
  const blocks = new Set();
  g.fillStyle = "#1d2330";
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      if (a[i * m + j] === 0) continue;
      nonzeros++;
      blocks.add(`${i >> 2},${j >> 2}`);
      g.fillRect(1 + j * cell + 1, 1 + i * cell + 1, cell - 2, cell - 2);
    }
    if (b && b[i] !== 0) g.fillRect(1 + m * cell + gap + 1, 1 + i * cell + 1, cell - 2, cell - 2);
  }
  g.strokeStyle = "#3465a4";
  g.lineWidth = 1;
  for (let bi = 0; bi < m; bi += 4) {
    for (let bj = 0; bj < m; bj += 4) {
      g.strokeRect(1.5 + bj * cell, 1.5 + bi * cell, Math.min(4, m - bj) * cell - 1, Math.min(4, m - bi) * cell - 1);
    }
    if (b) g.strokeRect(1.5 + m * cell + gap, 1.5 + bi * cell, cell - 1, Math.min(4, m - bi) * cell - 1);
  }
  const text = `[A | b] in the ${what}: ${m} × ${m}, ${nonzeros} non-zeros in ${blocks.size} of ${Math.ceil(m / 4) ** 2} 4 × 4 blocks${b ? ", b beside it" : ", no b"}; cost ${e.cost()} four-wide instructions.`;
  canvas.setAttribute("aria-label", text);
  canvas.nextElementSibling.textContent = text;
  canvas.dataset.cost = e.cost();
  canvas.dataset.nonzeros = nonzeros;
}

const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];

/** Draws each restart's cost against its moves (the paper's Fig. 8). */
function drawCurves(canvas, curves, best) {
  canvas.width = 540;
  canvas.height = 240;
  const g = canvas.getContext("2d");
  g.fillStyle = "#fff";
  g.fillRect(0, 0, canvas.width, canvas.height);
  const all = curves.flatMap((c) => [...c.costs]);
  const [lo, hi] = [Math.min(...all), Math.max(...all)];
  const moves = Math.max(1, ...curves.map((c) => (c.costs.length - 1) * c.every));
  const [left, top, w, h] = [40, 10, 300, 200];
  const px = (x) => left + (w * x) / moves;
  const py = (y) => top + h - (h * (y - lo)) / Math.max(1, hi - lo);
  g.strokeStyle = "#999";
  g.strokeRect(left, top, w, h);
  g.fillStyle = "#333";
  g.font = "11px sans-serif";
  g.fillText(String(hi), 4, top + 8);
  g.fillText(String(lo), 4, top + h);
  g.fillText(`moves (0 to ${moves} per run)`, left + 80, top + h + 22);
  curves.forEach((c, r) => {
    g.strokeStyle = COLOURS[r % COLOURS.length];
    g.beginPath();
    c.costs.forEach((y, k) => (k === 0 ? g.moveTo(px(k * c.every), py(y)) : g.lineTo(px(k * c.every), py(y))));
    g.stroke();
    g.fillStyle = g.strokeStyle;
    g.fillText(`from ${c.from}: ${c.costs[0]} → ${Math.min(...c.costs)}`, left + w + 8, top + 12 + 14 * r);
  });
  const text = `The current cost of each of the ${curves.length} annealing runs against its moves: ` +
    curves.map((c) => `from ${c.from}, ${c.costs[0]} to ${c.costs.at(-1)} (lowest ${Math.min(...c.costs)})`).join("; ") + `. Best overall: ${best}.`;
  canvas.setAttribute("aria-label", text);
  canvas.nextElementSibling.textContent = text;
}
