// Where the benchmark's resident product at a small order goes through Dawn: a chain of texla's
// default products (X <- X·B, 10 by default) timed as recorded (the CPU's calls, nothing
// awaited), then to the end of its read-back; the same chain again awaited with `finish` before
// the read-back (GPU time of the chain, then the read-back alone); and one product recorded by
// itself. Medians of `--reps` runs.
//
//   node resident-steps.mjs --pkg DIR [--n 1024] [--chain 10] [--reps 15] [--method matmul]
import { arg, findPkg, openTexla } from "./dawn.mjs";

const n = Number(arg("n", 1024));
const chain = Number(arg("chain", 10));
const reps = Number(arg("reps", 15));
const method = arg("method", "matmul");
const { gpu } = await openTexla({ pkgDir: findPkg(import.meta.dirname), requireGpu: process.argv.includes("--require-gpu") });
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
const data = new Float32Array(n * n).map((_, i) => (((i * 7919) % 1000) / 1000 - 0.5) / Math.sqrt(n));
const a = gpu.upload(data, n, n);
const b = gpu.upload(data, n, n);
await gpu.finish();
const now = () => performance.now();
function record() {
  let x = a;
  for (let i = 0; i < chain; i++) {
    const y = gpu[method](x, b);
    if (x !== a) x.free();
    x = y;
  }
  return x;
}
// Warm up: pipelines, pools, the GPU's clock.
const t0 = now();
while (now() - t0 < 2000) { const x = record(); await x.read(); x.free(); }
const steps = { recordMs: [], toReadMs: [], chainFinishMs: [], readAloneMs: [] };
for (let r = 0; r < reps; r++) {
  let t = now();
  let x = record();
  steps.recordMs.push(now() - t);
  await x.read();
  steps.toReadMs.push(now() - t);
  x.free();
  t = now();
  x = record();
  await gpu.finish();
  steps.chainFinishMs.push(now() - t);
  t = now();
  await x.read();
  steps.readAloneMs.push(now() - t);
  x.free();
}
const m = Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, median(v)]));
const gflops = (2 * n ** 3 * chain) / (m.toReadMs * 1e6);
console.log(`${method} n = ${n}, chain ${chain}, median of ${reps}: recorded in ${m.recordMs.toFixed(3)} ms ` +
  `(${(1000 * m.recordMs / chain).toFixed(0)} us a product); recorded + read back ${m.toReadMs.toFixed(3)} ms ` +
  `(${gflops.toFixed(0)} GFLOPS, the benchmark's resident figure); recorded + finish ${m.chainFinishMs.toFixed(3)} ms ` +
  `(${(m.chainFinishMs / chain).toFixed(3)} ms a product); then the read-back alone ${m.readAloneMs.toFixed(3)} ms`);
process.exit(0);
