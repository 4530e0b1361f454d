// The thesis's NMF at the thesis's shape (F 361 x 1024 from Gpgpu.partsImages, k = 144; least
// squares, V then U) in headless Chromium on both backends: ms per iteration of `gpu.nmf`
// (20 iterations, one error check at the start and one at the end) beside the same iteration in
// JavaScript float64 (www/reference/nmf.js), and the largest difference of U from float64 after
// 2 iterations from the same start. The thesis: 100 ms (its GPU), 162 ms (MKL).
// Usage: node bench/browser/nmf-bench.mjs [iterations = 20]
import { onEachBackend } from "../../tests/e2e/browser.mjs";

const iterations = Number(process.argv[2] ?? 20);
const rows = await onEachBackend(async ({ backend, iterations }) => {
    const texla = await import("/pkg/texla.js");
    await texla.default();
    const { nmf64 } = await import("/www/reference/nmf.js");
    const gpu = await texla.Gpgpu.create(backend);
    const [m, n, k] = [361, 1024, 144];
    const f = texla.Gpgpu.partsImages(n, 1);
    let seed = 1;
    const random = (len) => Float32Array.from({ length: len }, () => 0.1 + 0.9 * ((seed = (seed * 48271) % 2147483647) / 2147483647));
    const [u0, v0] = [random(m * k), random(n * k)];
    const [F, U0, V0] = [gpu.upload(f, m, n), gpu.upload(u0, m, k), gpu.upload(v0, n, k)];
    await gpu.nmf(F, k, { u0: U0, v0: V0, iterations: 2, checkEvery: 2 }); // builds the kernels
    const r = await gpu.nmf(F, k, { u0: U0, v0: V0, iterations, checkEvery: iterations });
    const two = await gpu.nmf(F, k, { u0: U0, v0: V0, iterations: 2, checkEvery: 2 });
    const t = performance.now();
    const exact = nmf64(Float64Array.from(f), Float64Array.from(u0), Float64Array.from(v0), m, n, k, { iterations: 2 });
    const jsMs = (performance.now() - t) / 2;
    const got = await two.u.read();
    let [worst, scale] = [0, 0];
    exact.u.forEach((x, i) => { worst = Math.max(worst, Math.abs(got[i] - x)); scale = Math.max(scale, Math.abs(x)); });
    return { backend, gpuMs: r.msPerIteration, jsMs, passesPerIteration: r.passes / iterations, errors: Array.from(r.errors), worst, scale };
}, { iterations });
console.log(`NMF 361 x 1024, k = 144, headless Chromium, ${new Date().toISOString()}`);
console.log("| backend | gpu.nmf ms / iteration | JS float64 ms / iteration | JS / GPU | passes / iteration | max abs(U - float64) after 2, of max U | thesis: GPU / MKL |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${r.backend} | ${r.gpuMs.toFixed(1)} | ${r.jsMs.toFixed(1)} | ${(r.jsMs / r.gpuMs).toFixed(2)} | ${r.passesPerIteration.toFixed(1)} | ${r.worst.toExponential(1)} of ${r.scale.toExponential(1)} | 100 / 162 |`);
}
console.log(JSON.stringify(rows));
