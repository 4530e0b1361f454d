// The SIMD-optimization paper's enhanced block Jacobi (EBJ) Poisson solver on the page: the seed's Table 3 with
// this GPU's numbers. gpu.poisson builds one generated pass per slab of four cells of every
// x-line (src/stencil/poisson_gpu.rs); natural order against the optimised one (stride 10 on the
// paper's 40-cell line; the paper's own x~ / x^ order on the 2D 8 x 8 teaching case), beside
// Gauss-Seidel in JavaScript float64 (www/reference/stencils.js). The tolerance is the relative
// residual |b - A x|_2 / |b|_2 in float64 (the paper does not define its own). The GPU's
// iteration counts come from gpu.poisson's solve (x read back and the residual checked after
// every iteration); its times are the iterations alone, run again from zero: "with transfer"
// adds the upload of b and the read-back of x, as the paper's GPU times do.

import { gaussSeidelTo } from "./reference/stencils.js";

export const TOLS = [1e-3, 1e-4, 1e-5];
/** The paper's 2D order (Fig. 10): x~ = (x4, x7, x0, x3), x^ = (x1, x5, x6, x2). */
export const PAPER_2D = [4, 7, 0, 3, 1, 5, 6, 2];

export const GRIDS = {
  "3d": { dims: [40, 80, 80], label: "3D 40 × 80 × 80 (256,000 unknowns, the paper's Table 3)" },
  "3d-small": { dims: [40, 20, 20], label: "3D 40 × 20 × 20 (16,000 unknowns, quick)" },
  "2d": { dims: [8, 8, 1], label: "2D 8 × 8 (the teaching case, Fig. 10)" },
};

/** The first iteration count at which `history` (residual per iteration) is <= each tol. */
function countsFrom(history) {
  return TOLS.map((tol) => {
    const k = history.findIndex((r) => r <= tol);
    return k < 0 ? null : k + 1;
  });
}

/** Table 3's rows for the grid `dims` on `gpu`: Gauss-Seidel in float64 and EBJ in the natural
 * and the optimised order, each { name, cost, counts, iterations, ms, msCompute, f64 }. */
export async function table3(gpu, dims, { maxIter = 20000, gaussSeidel = true } = {}) {
  const [nx, ny, nz] = dims;
  const rows = [];
  const optimized = nx === 8 && nz === 1 ? PAPER_2D : "optimized";
  let b = null;
  for (const ordering of ["natural", optimized]) {
    const solver = gpu.poisson({ nx, ny, nz, ordering });
    b ??= solver.rhs(1);
    solver.setRhs(b);
    const solved = await solver.solve({ tol: TOLS[2], maxIter, checkEvery: 1 });
    const iterations = countsFrom(solved.history);
    const ms = [];
    const msCompute = [];
    for (const n of iterations) {
      if (n === null) {
        ms.push(null);
        msCompute.push(null);
        continue;
      }
      // Without transfer: b already on the GPU, the iterations alone.
      solver.setRhs(b);
      await gpu.finish();
      let t = performance.now();
      await solver.iterate(n);
      msCompute.push(performance.now() - t);
      // With transfer: upload b, iterate, read x back.
      t = performance.now();
      solver.setRhs(b);
      await solver.iterate(n);
      await solver.solution();
      ms.push(performance.now() - t);
    }
    const f64 = nx * ny * nz <= 20000 ? solver.iterationsFloat64(b, TOLS, maxIter) : null;
    const perm = Array.from(solver.permutation);
    const slabs = Array.from({ length: nx / 4 }, (_, s) => perm.slice(4 * s, 4 * s + 4));
    const lang = gpu.backend === "webgpu" ? "wgsl" : "glsl";
    // The generated part of each pass (the shared prelude and input helpers cut off).
    const shaders = slabs.slice(0, 2).map((_, s) => {
      const text = solver.shader(s, lang);
      return text.slice(Math.max(0, text.indexOf("// One pass of the SIMD-optimization paper")));
    });
    rows.push({
      name: `EBJ, ${ordering === "natural" ? "natural" : ordering === "optimized" ? `optimised (${solver.ordering})` : "optimised (the paper's x~, x^)"}`,
      order: ordering === "natural" ? "natural" : "optimized",
      cost: solver.cost(),
      counts: solver.counts(),
      iterations,
      ms,
      msCompute,
      f64,
      slabs,
      shaders,
    });
    solver.free();
  }
  if (gaussSeidel) {
    const gs = gaussSeidelTo(dims, b, TOLS, maxIter);
    rows.unshift({ name: "Gauss-Seidel, JavaScript float64", order: "gs", iterations: gs.iterations, ms: gs.ms, msCompute: gs.ms });
  }
  return rows;
}

/** The seed's claims, checked on `rows`: Gauss-Seidel needs fewer iterations than EBJ, and the
 * optimised order fewer than the natural one, at every tolerance reached. */
export function claims(rows) {
  const by = (o) => rows.find((r) => r.order === o);
  const [gs, nat, opt] = [by("gs"), by("natural"), by("optimized")];
  const fewer = (a, b) => a.iterations.every((n, k) => n !== null && b.iterations[k] !== null && n < b.iterations[k]);
  return { gsFewer: gs ? fewer(gs, opt) && fewer(gs, nat) : null, optimizedFewer: fewer(opt, nat) };
}

const $ = (id) => document.getElementById(id);
const fmt = (ms, n) => (n === null ? "not reached" : `${ms.toFixed(ms < 10 ? 2 : 1)} (${n})`);

/** Sets up the solver's part of the section in `box`. */
export function initPoisson(gpu, box, guarded) {
  box.insertAdjacentHTML(
    "beforeend",
    `<h3>The enhanced block Jacobi Poisson solver (Table 3)</h3>
    <p>A x = b on a grid of cells: the 7-point (2D: 5-point) Laplacian, zero Dirichlet values beyond
    the two planes perpendicular to x and zero Neumann in y and z (a neighbour outside is the cell
    itself), b the divergence of a seeded random velocity field. Each x-line is held in a chosen order,
    four cells to a texel; slab s (positions 4s..4s+3 of every line) is one texture, updated by one
    generated pass that reads the newest slabs before it: ten passes an iteration on the paper's
    40-cell line, two on the 8-cell line (the paper's x̃ and x̂ programs). Tolerance: the relative
    residual |b − A x|₂ / |b|₂ in float64. GPU ms: the iterations alone (“compute”), and with the upload
    of b and the read-back of x (“with transfer”).</p>
    <form id="linear-ebj-form" class="controls" novalidate>
      <label>grid <select id="linear-ebj-grid">${Object.entries(GRIDS).map(([k, g]) => `<option value="${k}">${g.label}</option>`).join("")}</select></label>
      <button type="submit">Run Table 3</button>
    </form>
    <div class="result" id="linear-ebj-result"></div>`,
  );
  $("linear-ebj-grid").value = "3d-small";
  $("linear-ebj-form").addEventListener("submit", (e) => {
    e.preventDefault();
    guarded($("linear-ebj-result"), () => run(gpu));
  });
}

async function run(gpu) {
  const grid = GRIDS[$("linear-ebj-grid").value];
  const out = $("linear-ebj-result");
  out.textContent = `Solving ${grid.label} to 1e-5 in both orders and by Gauss-Seidel …`;
  const rows = await table3(gpu, grid.dims);
  const c = claims(rows);
  const head = `<tr><th>solver</th><th>abstract cost: S / one product (multiplications / lanes)</th><th>one iteration's kernels: ops / fetches (WGSL, GLSL)</th>${TOLS.map((t) => `<th>ms (iterations) to ${t}</th>`).join("")}<th>compute only, ms</th><th>float64 EBJ iterations</th></tr>`;
  const body = rows
    .map((r) => {
      const cost = r.cost ? `${r.cost.s} / ${r.cost.product} (${r.cost.operations} / ${4 * r.cost.product}, ${(100 * r.cost.efficiency).toFixed(1)}%)` : "–";
      const counts = r.counts ? `${r.counts.wgsl.ops} / ${r.counts.wgsl.fetches}, ${r.counts.glsl.ops} / ${r.counts.glsl.fetches}` : "–";
      const compute = r.order === "gs" ? "–" : r.msCompute.map((m) => (m === null ? "–" : m.toFixed(1))).join(" / ");
      const f64 = r.f64 ? r.f64.map((n) => n ?? "–").join(" / ") : "–";
      return `<tr data-order="${r.order}" data-iterations="${r.iterations.join(",")}"><td>${r.name}</td><td>${cost}</td><td>${counts}</td>${r.ms.map((m, k) => `<td>${fmt(m ?? 0, r.iterations[k])}</td>`).join("")}<td>${compute}</td><td>${f64}</td></tr>`;
    })
    .join("");
  const opt = rows.find((r) => r.order === "optimized");
  const slabText = (r) => r.slabs.map((q, s) => `slab ${s}: (${q.map((i) => `x${i}`).join(", ")})`).join(", ");
  const yes = (v) => (v ? "yes" : "no");
  out.innerHTML = `<table class="numbers" id="linear-ebj-table" data-gs-fewer="${c.gsFewer}" data-optimized-fewer="${c.optimizedFewer}">${head}${body}</table>
    <p id="linear-ebj-claims">The seed's claims on ${grid.label}: Gauss-Seidel needs fewer iterations than EBJ: <b>${yes(c.gsFewer)}</b>; the optimised order needs fewer than the natural one: <b>${yes(c.optimizedFewer)}</b>. (Gauss-Seidel runs on this page's CPU in JavaScript float64, its ms are its sweeps alone.)</p>
    <p id="linear-ebj-slabs">The optimised order's quadruples: ${slabText(opt)}${opt.slabs.length > 2 ? "" : " (the paper's x̃ and x̂)"}.</p>
    <details><summary>The generated passes of the optimised order (slab 0${opt.shaders.length > 1 ? " and slab 1" : ""}, this backend's language, without the shared prelude)</summary><pre class="shader" id="linear-ebj-shader"></pre></details>`;
  $("linear-ebj-shader").textContent = opt.shaders.join("\n\n");
}
