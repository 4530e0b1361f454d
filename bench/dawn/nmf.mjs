// The thesis's NMF through Dawn in Node: texla's pkg/ factorises the thesis's shape (F 361 x 1024
// from Gpgpu.partsImages, k = 144; least squares, V then U) and prints ms per iteration (the
// median of 5 runs of `--iterations`, one error check at the start and one at the end of each).
//
//   node bench/dawn/nmf.mjs [--iterations 100] [--pkg DIR] [--require-gpu]
import path from "node:path";
import { fileURLToPath } from "node:url";
import { arg, findPkg, openTexla } from "./dawn.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const iterations = Number(arg("iterations", "100"));
const { gpu, texla, adapterInfo } = await openTexla({
  pkgDir: findPkg(here),
  flags: arg("dawn-flags", process.env.DAWN_FLAGS || ""),
  requireGpu: process.argv.includes("--require-gpu"),
});
const [m, n, k] = [361, 1024, 144];
const F = gpu.upload(texla.Gpgpu.partsImages(n, 1), m, n);
await gpu.nmf(F, k, { iterations: 2, checkEvery: 2 }); // builds the pipelines
const runs = [];
let last;
for (let r = 0; r < 5; r++) {
  last = await gpu.nmf(F, k, { iterations, checkEvery: iterations, seed: r + 1 });
  runs.push(last.msPerIteration);
}
runs.sort((a, b) => a - b);
console.log(`Dawn adapter: ${JSON.stringify(adapterInfo)}`);
console.log(`NMF ${m}x${n}, k = ${k} through Dawn: ${runs[2].toFixed(3)} ms per iteration (median of 5 runs of ${iterations}; all: ${runs.map((x) => x.toFixed(2)).join(", ")}); ||F - UV^T||^2 ${last.errors[0].toExponential(3)} -> ${last.errors.at(-1).toExponential(3)}; ${last.passes / iterations} passes per iteration; the thesis: 100 ms (its GPU), 162 ms (MKL)`);
