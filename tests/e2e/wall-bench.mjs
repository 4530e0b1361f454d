// Wall benchmark: per-frame LCP solve ms on the GPU in dense and block mode, on both backends,
// against the float64 JavaScript projected Jacobi of the same LCPs in the same run.
// Usage: node wall-bench.mjs [iterations=100] [frames=3]
import { serve, launch } from "./browser.mjs";

const iterations = Number(process.argv[2] ?? 100);
const frames = Number(process.argv[3] ?? 3);
const srv = await serve();
const browser = await launch();
const rows = [];
for (const backend of ["webgpu", "webgl2"]) {
  const page = await browser.newPage();
  await page.goto(`${srv.url}www/style.css`);
  rows.push(...(await page.evaluate(async ({ backend, iterations, frames }) => {
    const texla = await import("/pkg/texla.js");
    await texla.default();
    const { contactJacobi64 } = await import("/www/wall.js");
    const gpu = await texla.Gpgpu.create(backend);
    const out = [];
    for (const mode of ["blocks", "dense"]) {
      const wall = gpu.wall(1);
      wall.setMode(mode);
      wall.setIterations(iterations);
      await wall.step(); // compiles the kernel
      let gpuMs = 0, jsMs = 0, size = 0;
      for (let f = 0; f < frames; f++) {
        const s = await wall.step();
        gpuMs += s.solveMs;
        const lcp = wall.lcp();
        size = lcp.size;
        const t = performance.now();
        contactJacobi64(lcp);
        jsMs += performance.now() - t;
      }
      out.push({ backend, mode, size, iterations, gpuMs: gpuMs / frames, jsMs: jsMs / frames });
    }
    return out;
  }, { backend, iterations, frames })));
  await page.close();
}
await browser.close();
srv.close();
console.log("backend  mode    LCP n  iterations  GPU ms/frame  JS float64 ms/frame  GPU/JS speed-up");
for (const r of rows) {
  console.log(`${r.backend.padEnd(8)} ${r.mode.padEnd(7)} ${String(r.size).padStart(5)} ${String(r.iterations).padStart(10)} ${r.gpuMs.toFixed(1).padStart(13)} ${r.jsMs.toFixed(1).padStart(20)} ${(r.jsMs / r.gpuMs).toFixed(2).padStart(16)}`);
}
console.log(JSON.stringify(rows));
