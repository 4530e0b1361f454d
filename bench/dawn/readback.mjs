// What a number read back costs through Dawn, one call at a time and 20 issued at once:
// texla's sum of a 1024 x 1024 matrix, texla's copy of a 1 x 1 matrix read back, a raw WebGPU
// copy of 256 bytes submitted and mapped (on texla's device, `gpu.device()`), and TF.js's sum
// read with data(); median ms a call of 9 rounds after 3 warm-ups.
//   node bench/dawn/readback.mjs [--pkg DIR]
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findPkg, openTexla, peerGlobals } from "./dawn.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { gpu, gpuApi } = await openTexla({ pkgDir: findPkg(here) });
await peerGlobals(gpuApi);
const tf = await import("@tensorflow/tfjs-core"); await import("@tensorflow/tfjs-backend-webgpu"); await tf.setBackend("webgpu"); await tf.ready();
const dev = gpu.device();
const a = gpu.upload(new Float32Array(1024 * 1024).fill(1), 1024, 1024);
const one = gpu.upload(new Float32Array([1]), 1, 1);
const t = tf.ones([1024, 1024]);
const src = dev.createBuffer({ size: 256, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
const raw = async () => {
  const dst = dev.createBuffer({ size: 256, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const e = dev.createCommandEncoder(); e.copyBufferToBuffer(src, 0, dst, 0, 256); dev.queue.submit([e.finish()]);
  await dst.mapAsync(GPUMapMode.READ); dst.destroy();
};
const paths = {
  "texla sum 1024": () => gpu.sum(a),
  "texla copy+read 1x1": async () => { const c = gpu.copy(one); await c.read(); c.free(); },
  "raw submit+mapAsync": raw,
  "tfjs sum 1024": async () => { const s = tf.sum(t); await s.data(); s.dispose(); },
};
const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
for (const [name, f] of Object.entries(paths)) {
  for (let w = 0; w < 3; w++) await f();
  for (const k of [1, 20]) {
    const ms = [];
    for (let r = 0; r < 9; r++) { const t0 = performance.now(); await Promise.all(Array.from({ length: k }, f)); ms.push((performance.now() - t0) / k); }
    console.log(`${name}, ${k} at once: ${median(ms).toFixed(3)} ms a call`);
  }
}
process.exit(0);
