// The SIMD-optimization paper's measures in headless Chromium on both backends (here SwiftShader, a CPU emulator),
// through the JS API and the page's own measuring functions (www/linear-poisson.js table3,
// www/linear-wave.js table4): the examples' y = A x + b by gpu.linear (ms per sweep on 1024
// vectors, natural against optimised, median of 5 after a warm-up), the seed's Table 3 (EBJ
// against Gauss-Seidel in JavaScript float64, iterations and ms at 1e-3, 1e-4, 1e-5, with and
// without transfer) and Table 4 (the wave, ms per step with and without read-back).
// Usage: node bench/browser/linear-bench.mjs [nx,ny,nz] [wave side]   (defaults 40,80,80 and 512)
import { onEachBackend } from "../../tests/e2e/browser.mjs";

const dims = (process.argv[2] ?? "40,80,80").split(",").map(Number);
const side = Number(process.argv[3] ?? 512);
const started = Date.now();
const results = await onEachBackend(
  async ({ backend, dims, side }) => {
    const texla = await import("/pkg/texla.js");
    await texla.default();
    const { table3 } = await import("/www/linear-poisson.js");
    const { table4 } = await import("/www/linear-wave.js");
    const gpu = await texla.Gpgpu.create(backend, { keepCopies: false });
    const examples = [];
    for (const name of ["rk-cars", "poisson-2d-s", "poisson-3d-s", "wave-s-star"]) {
      const e = texla.LinearExpr.example(name);
      const opt = e.permute(e.optimize({ seed: 1, moves: 40000 }).permutation);
      for (const [order, x] of [["natural", e], ["optimized", opt]]) {
        const m = x.size;
        const cols = 1024;
        const gx = gpu.upload(Float32Array.from({ length: m * cols }, (_, k) => Math.sin(k)), m, cols);
        gpu.linear(x, gx).free();
        await gpu.finish();
        const ms = [];
        for (let r = 0; r < 5; r++) {
          const t = performance.now();
          const ys = Array.from({ length: 10 }, () => gpu.linear(x, gx));
          await gpu.finish();
          ms.push((performance.now() - t) / 10);
          ys.forEach((y) => y.free());
        }
        examples.push({ name, order, cost: x.cost(), ms: ms.sort((a, b) => a - b)[2] });
        gx.free();
      }
    }
    const t3 = await table3(gpu, dims, { gaussSeidel: backend === "webgpu" });
    const t4 = await table4(gpu, { side });
    return { backend, examples, t3, t4 };
  },
  { dims, side },
);
const f = (v) => (v === null || v === undefined ? "–" : v.toFixed(v < 10 ? 2 : 1));
console.log(`The SIMD-optimization paper in headless Chromium (SwiftShader), ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log("\nThe examples through gpu.linear, ms per sweep of 1024 vectors");
console.log("| backend | example | natural: cost, ms | optimised: cost, ms |");
console.log("|---|---|---|---|");
for (const r of results) {
  for (let k = 0; k < r.examples.length; k += 2) {
    const [n, o] = [r.examples[k], r.examples[k + 1]];
    console.log(`| ${r.backend} | ${n.name} | ${n.cost}, ${f(n.ms)} | ${o.cost}, ${f(o.ms)} |`);
  }
}
console.log(`\nTable 3: ${dims.join(" x ")}, ms (iterations) to 1e-3 / 1e-4 / 1e-5 with transfer; compute only`);
console.log("| backend | solver | cost S / product | 1e-3 | 1e-4 | 1e-5 | compute only |");
console.log("|---|---|---|---|---|---|---|");
for (const r of results) {
  for (const row of r.t3) {
    const cells = row.ms.map((m, k) => (row.iterations[k] === null ? "not reached" : `${f(m)} (${row.iterations[k]})`));
    const cost = row.cost ? `${row.cost.s} / ${row.cost.product}` : "–";
    const compute = row.order === "gs" ? "–" : row.msCompute.map(f).join(" / ");
    console.log(`| ${row.order === "gs" ? "CPU" : r.backend} | ${row.name} | ${cost} | ${cells.join(" | ")} | ${compute} |`);
  }
}
console.log(`\nTable 4: the ${side} x ${side} wave, ms per step`);
console.log("| backend | CPU (JavaScript float64) | GPU natural, with read-back | GPU optimised, with read-back | natural, no transfer | optimised, no transfer |");
console.log("|---|---|---|---|---|---|");
for (const r of results) {
  const [n, o, c] = r.t4;
  console.log(`| ${r.backend} | ${f(c.ms)} | ${f(n.msRead)} | ${f(o.msRead)} | ${f(n.ms)} | ${f(o.ms)} |`);
}
console.log("\n" + JSON.stringify(results));
