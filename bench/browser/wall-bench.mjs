// Wall benchmark (issue 5): per-frame LCP solve ms on the GPU in dense and block mode, on both
// backends, against float64 JavaScript projected Jacobi of the same LCPs in the same run, both
// skipping zeros (as the block mode does) and over every element (as the dense mode does).
// Usage: node bench/browser/wall-bench.mjs [iterations=0 (2n, Jacobi's default)] [frames=2] [throw=1]
// The frames follow a thrown ball (throw=1) or the standing wall (throw=0); each GPU time is
// the solve of one frame (upload, 'iterations' passes, read-back), JS the same iterations.
import { onEachBackend } from "../../tests/e2e/browser.mjs";

const iterations = Number(process.argv[2] ?? 0);
const frames = Number(process.argv[3] ?? 2);
const thrown = (process.argv[4] ?? "1") === "1";
const rows = (await onEachBackend(async ({ backend, iterations, frames, thrown }) => {
    const texla = await import("/pkg/texla.js");
    await texla.default();
    const { contactJacobi64 } = await import("/www/reference/contact.js");
    const gpu = await texla.Gpgpu.create(backend);
    const out = [];
    for (const mode of ["blocks", "dense"]) {
      const wall = gpu.wall(1);
      wall.setSolver("jacobi"); // the seed's solver, which the JS loops below run too
      wall.setMode(mode);
      wall.setIterations(iterations);
      if (thrown) wall.throwBall(0, -0.1);
      await wall.step(); // compiles the kernel
      const sum = { gpuMs: 0, sparseMs: 0, denseMs: 0 };
      let size = 0, its = 0, contacts = 0;
      for (let f = 0; f < frames; f++) {
        const s = await wall.step();
        sum.gpuMs += s.solveMs;
        const lcp = wall.lcp();
        [size, its, contacts] = [lcp.size, lcp.iterations, s.contacts];
        let t = performance.now();
        contactJacobi64(lcp);
        sum.sparseMs += performance.now() - t;
        t = performance.now();
        contactJacobi64(lcp, lcp.iterations, true);
        sum.denseMs += performance.now() - t;
      }
      out.push({ backend, mode, contacts, size, iterations: its, gpuMs: sum.gpuMs / frames, jsSparseMs: sum.sparseMs / frames, jsDenseMs: sum.denseMs / frames });
    }
    return out;
}, { iterations, frames, thrown })).flat();
const pad = (v, w) => String(v).padStart(w);
console.log(`wall LCP, ${frames} frames ${thrown ? "after a thrown ball" : "of the standing wall"}, headless Chromium, ${new Date().toISOString()}`);
console.log("backend  mode    contacts  LCP n  iterations  GPU ms/frame  JS f64 sparse ms  JS f64 dense ms  sparse/GPU  dense/GPU");
for (const r of rows) {
  console.log(`${r.backend.padEnd(8)} ${r.mode.padEnd(7)} ${pad(r.contacts, 8)} ${pad(r.size, 6)} ${pad(r.iterations, 11)} ${pad(r.gpuMs.toFixed(1), 13)} ${pad(r.jsSparseMs.toFixed(1), 17)} ${pad(r.jsDenseMs.toFixed(1), 16)} ${pad((r.jsSparseMs / r.gpuMs).toFixed(2), 11)} ${pad((r.jsDenseMs / r.gpuMs).toFixed(2), 10)}`);
}
console.log(JSON.stringify(rows));
