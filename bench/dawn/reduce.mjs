// Reductions through Dawn: texla's sum and dot as a user calls them (the matrices on the GPU,
// each call one awaited scalar) beside TF.js's `tf.sum(a)` and `tf.sum(tf.mul(a, b))` read with
// `data()`. Paths in turns (each round starts at another), median ms a call of `--reps`; every
// result checked against float64 (the dot-product bound). Each path is timed
// one call at a time (what a call costs: one scalar read back) and as `--chain` calls issued
// together and awaited together (the GPU's throughput, their read-backs overlapping). With
// `--before DIR`, texla's pkg/ from DIR (an earlier build) runs beside, as "texla before".
//   node bench/dawn/reduce.mjs [--sizes 1024,4096,8192] [--reps 15] [--chain 20] [--before DIR]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { arg, findPkg, openTexla, peerGlobals } from "./dawn.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const sizes = arg("sizes", "1024,4096,8192").split(",").map(Number);
const reps = Number(arg("reps", "15"));
const chain = Number(arg("chain", "20"));
const { gpu, gpuApi, adapterInfo } = await openTexla({ pkgDir: findPkg(here), flags: process.env.DAWN_FLAGS || "" });
const devices = [["texla", gpu]];
const beforeDir = arg("before", null);
if (beforeDir) {
  const before = await import(pathToFileURL(path.join(beforeDir, "texla.js")).href);
  before.initSync({ module: fs.readFileSync(path.join(beforeDir, "texla_bg.wasm")) });
  devices.push(["texla before", await before.Gpgpu.create("webgpu", { gpu: gpuApi, keepCopies: false })]);
}
await peerGlobals(gpuApi);
const tf = await import("@tensorflow/tfjs-core");
await import("@tensorflow/tfjs-backend-webgpu");
await tf.setBackend("webgpu");
await tf.ready();
console.log(`adapter ${JSON.stringify(adapterInfo)}`);

let seed = 7;
const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296) * 2 - 1;
const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
const rows = [];
for (const n of sizes) {
  const a = Float32Array.from({ length: n * n }, next);
  const b = Float32Array.from({ length: n * n }, next);
  let sum = 0, dot = 0, abs = 0, dotAbs = 0;
  for (let i = 0; i < n * n; i++) {
    sum += a[i]; abs += Math.abs(a[i]); dot += a[i] * b[i]; dotAbs += Math.abs(a[i] * b[i]);
  }
  const bound = (s) => 2 * (n * n + 2) * 2 ** -24 * s;
  const exact = { sum: [sum, bound(abs)], dot: [dot, bound(dotAbs)] };
  const tA = tf.tensor2d(a, [n, n]), tB = tf.tensor2d(b, [n, n]);
  const paths = [];
  for (const [name, g] of devices) {
    const ga = g.upload(a, n, n), gb = g.upload(b, n, n);
    paths.push({ name, op: { sum: () => g.sum(ga), dot: () => g.dot(ga, gb) } });
  }
  const scalar = async (t) => { const v = (await t.data())[0]; t.dispose(); return v; };
  paths.push({ name: "tfjs", op: {
    sum: () => scalar(tf.sum(tA)),
    dot: () => scalar(tf.tidy(() => tf.sum(tf.mul(tA, tB)))),
  } });
  const check = (p, what, got) => {
    const [want, tol] = exact[what];
    if (!(Math.abs(got - want) <= tol)) throw new Error(`${p.name} ${what} n=${n}: ${got} vs ${want}`);
  };
  for (const what of ["sum", "dot"]) {
    for (const [mode, calls] of [["one call", 1], [`${chain} together`, chain]]) {
      const ms = paths.map(() => []);
      for (const p of paths) check(p, what, await p.op[what]());
      for (let r = 0; r < reps; r++) {
        for (let k = 0; k < paths.length; k++) {
          const i = (k + r) % paths.length;
          const t0 = performance.now();
          const got = await Promise.all(Array.from({ length: calls }, () => paths[i].op[what]()));
          ms[i].push((performance.now() - t0) / calls);
          got.forEach((v) => check(paths[i], what, v));
        }
      }
      for (let i = 0; i < paths.length; i++) {
        const m = median(ms[i]);
        const bytes = (what === "dot" ? 2 : 1) * 4 * n * n;
        rows.push({ n, what, mode, path: paths[i].name, ms: +m.toFixed(4), gbs: +(bytes / m / 1e6).toFixed(1) });
        console.log(`n=${n} ${what} ${mode} ${paths[i].name}: ${m.toFixed(3)} ms a call, ${(bytes / m / 1e6).toFixed(1)} GB/s`);
      }
    }
  }
  tA.dispose(); tB.dispose();
}
const out = process.env.OUT || here;
fs.writeFileSync(path.join(out, "dawn-reduce.json"), JSON.stringify({ adapter: adapterInfo, rows }, null, 1));
process.exit(0);
