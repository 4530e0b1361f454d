// Float-float against float32 speed in headless Chromium on both backends (here SwiftShader, a
// CPU emulator): the 256 and 512 products and A·x of those orders through the JS API, ms from
// the call to the end of the GPU's work (`gpu.finish()`), operands already on the GPU, median of
// 5 after a warm-up (A·x: 20 calls back to back per run, divided out). The float32 product is
// the default (fast) kernel, with the teaching kernel beside it: the float-float product has the
// teaching kernel's shape (one output texel per fragment).
// Usage: node bench/browser/float-float-bench.mjs
import { onEachBackend } from "../../tests/e2e/browser.mjs";

const rows = await onEachBackend(async ({ backend }) => {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const gpu = await texla.Gpgpu.create(backend, { keepCopies: false });
  const time = async (reps, op) => {
    op().free();
    await gpu.finish();
    const ms = [];
    for (let run = 0; run < 5; run++) {
      const t0 = performance.now();
      const results = Array.from({ length: reps }, op);
      await gpu.finish();
      ms.push((performance.now() - t0) / reps);
      results.forEach((m) => m.free());
    }
    return ms.sort((a, b) => a - b)[2];
  };
  const out = [];
  for (const n of [256, 512]) {
    let seed = n;
    const random = (len) => Float32Array.from({ length: len }, () => 2 * ((seed = (seed * 48271) % 2147483647) / 2147483647) - 1);
    const [a, x] = [random(n * n), random(n)];
    const [ga, gx] = [gpu.upload(a, n, n), gpu.upload(x, n, 1)];
    const [fa, fx] = [gpu.uploadFloat64(Float64Array.from(a, (v) => v / 3), n, n), gpu.uploadFloat64(Float64Array.from(x, (v) => v / 3), n, 1)];
    out.push({
      backend,
      n,
      mul: await time(1, () => gpu.matmul(ga, ga)),
      teaching: await time(1, () => gpu.matmul(ga, ga, { kernel: "teaching" })),
      mulFf: await time(1, () => gpu.matmul(fa, fa)),
      mv: await time(20, () => gpu.mulVec(ga, gx)),
      mvFf: await time(20, () => gpu.mulVec(fa, fx)),
    });
    [ga, gx, fa, fx].forEach((m) => m.free());
  }
  return out;
});
console.log(`Float-float against float32, headless Chromium, ${new Date().toISOString()}`);
console.log("| backend | n | A B float32 (fast) ms | teaching ms | float-float ms | ff / fast | ff / teaching | A x float32 ms | float-float ms | ff / f32 |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows.flat()) {
  const f = (v) => v.toFixed(v < 10 ? 2 : 1);
  console.log(`| ${r.backend} | ${r.n} | ${f(r.mul)} | ${f(r.teaching)} | ${f(r.mulFf)} | ${(r.mulFf / r.mul).toFixed(1)} | ${(r.mulFf / r.teaching).toFixed(1)} | ${f(r.mv)} | ${f(r.mvFf)} | ${(r.mvFf / r.mv).toFixed(1)} |`);
}
