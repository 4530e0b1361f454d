// What a number read back costs through Dawn, one call at a time and 20 issued at once. texla
// (`--pkg DIR`): the sum of a 1024 x 1024 matrix, a copy of a 1 x 1 matrix read back, a 1 x 1
// matrix read back with nothing before it, a product at 256 read back (alone, then copied, and
// after a copy), the sum of a 64 x 64 matrix, a dot product at 1024, and (one at a time only)
// the benchmark's resident chain at 1024: ten products X <- X·B, then X read back; raw WebGPU on
// texla's device (`gpu.device()`): one copy of 256 bytes submitted into a new buffer and mapped.
// With `--tfjs`, TF.js's sum of a 1024 x 1024 tensor read with data(), without texla: each
// library runs in a process of its own, since a second device in the process slowed some paths
// by 10 ms a call (bench/records/h100/dawn/latency-2026-11-27.md). Each measurement starts after
// 20 ms idle, as a user's call does. Median (and range) of ms a call over 9 rounds after 3
// warm-ups, the paths in turns.
//   node bench/dawn/readback.mjs [--pkg DIR] [--tfjs]
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findPkg, openTexla, peerGlobals } from "./dawn.mjs";

const paths = {};
if (process.argv.includes("--tfjs")) {
  const webgpu = await import("webgpu");
  await peerGlobals(webgpu.create([]));
  const tf = await import("@tensorflow/tfjs-core"); await import("@tensorflow/tfjs-backend-webgpu"); await tf.setBackend("webgpu"); await tf.ready();
  const t = tf.ones([1024, 1024]);
  const small = tf.fill([256, 256], 1 / 256);
  Object.assign(paths, {
    "tfjs sum 1024": async () => { const s = tf.sum(t); await s.data(); s.dispose(); },
    "tfjs matMul 256+data": async () => { const c = tf.matMul(small, small); await c.data(); c.dispose(); },
  });
} else {
  const { gpu, gpuApi } = await openTexla({ pkgDir: findPkg(path.dirname(fileURLToPath(import.meta.url))) });
  await peerGlobals(gpuApi);
  const dev = gpu.device();
  const src = dev.createBuffer({ size: 256, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  const a = gpu.upload(new Float32Array(1024 * 1024).fill(1), 1024, 1024);
  const small = gpu.upload(new Float32Array(256 * 256).fill(1 / 256), 256, 256);
  const one = gpu.upload(new Float32Array([1]), 1, 1);
  const tiny = gpu.upload(new Float32Array(64 * 64).fill(1), 64, 64);
  const x0 = gpu.upload(new Float32Array(1024 * 1024).map((_, i) => ((i % 7) - 3) / 1024), 1024, 1024);
  Object.assign(paths, {
    "texla sum 1024": () => gpu.sum(a),
    "texla copy+read 1x1": async () => { const c = gpu.copy(one); await c.read(); c.free(); },
    "texla read 1x1": () => one.read(),
    "raw submit+mapAsync": async () => {
      const dst = dev.createBuffer({ size: 256, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
      const e = dev.createCommandEncoder(); e.copyBufferToBuffer(src, 0, dst, 0, 256); dev.queue.submit([e.finish()]);
      await dst.mapAsync(GPUMapMode.READ); dst.destroy();
    },
    "texla matmul 256+read": async () => { const c = gpu.matmul(small, small); await c.read(); c.free(); },
    "texla matmul 256, copy, read": async () => { const c = gpu.matmul(small, small); const d = gpu.copy(c); c.free(); await d.read(); d.free(); },
    "texla copy 256, matmul, read": async () => { const c = gpu.copy(small); const d = gpu.matmul(c, small); c.free(); await d.read(); d.free(); },
    "texla sum 64x64": () => gpu.sum(tiny),
    "texla dot 1024": () => gpu.dot(a, a),
    "texla chain 10 at 1024+read": async () => {
      let x = x0;
      for (let i = 0; i < 10; i++) { const y = gpu.matmul(x, x0); if (x !== x0) x.free(); x = y; }
      await x.read(); x.free();
    },
  });
}
const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
const sleep = (t) => new Promise((done) => setTimeout(done, t));
const ms = {};
for (const f of Object.values(paths)) for (let w = 0; w < 3; w++) await f();
for (let r = 0; r < 9; r++) {
  for (const [name, f] of Object.entries(paths)) {
    for (const k of name.includes("chain") ? [1] : [1, 20]) {
      await sleep(20);
      const t0 = performance.now();
      await Promise.all(Array.from({ length: k }, f));
      (ms[`${name}|${k}`] ??= []).push((performance.now() - t0) / k);
    }
  }
}
const cell = (v) => v ? `${median(v).toFixed(3)} (${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)})` : "";
console.log("| path | one call, ms | 20 at once, ms a call |\n|---|---:|---:|");
for (const name of Object.keys(paths)) console.log(`| ${name} | ${cell(ms[`${name}|1`])} | ${cell(ms[`${name}|20`])} |`);
process.exit(0);
