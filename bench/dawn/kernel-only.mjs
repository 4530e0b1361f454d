// texla's compute product as Dawn runs it, without texla: the WGSL that texla built (taken from
// gpu.lastShader()) in a pipeline of its own, its textures and uniforms made here, and many
// dispatches in one submission. If this runs at the native speed, the gap between Dawn and
// native is in how texla drives Dawn; if it is as slow as through texla, it is in how Dawn
// compiles and runs the kernel.
//
//   node kernel-only.mjs --pkg DIR [--n 4096] [--reps 20] [--dawn-flags "a;b"]
import fs from "node:fs";
import { create, globals } from "webgpu";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const n = Number(arg("n", 4096));
const reps = Number(arg("reps", 20));
const pkg = arg("pkg", "../../pkg");
const flags = String(arg("dawn-flags", "")).split(";").filter(Boolean);

Object.assign(globalThis, globals);
globalThis.navigator = { gpu: create(flags) };
globalThis.window = globalThis;
globalThis.Window = class {};
const texla = await import(`${pkg}/texla.js`);
texla.initSync({ module: fs.readFileSync(`${pkg}/texla_bg.wasm`) });

// texla's kernel source for this n, and its time through texla.
const gpu = await texla.Gpgpu.create("webgpu", { keepCopies: false });
const data = new Float32Array(n * n).map((_, i) => ((i * 7919) % 1000) / 1000 / Math.sqrt(n));
const A = gpu.upload(data, n, n);
let x = gpu.matmul(A, A, { kernel: "compute" });
await x.read();
const wgsl = gpu.lastShader();
let t0 = performance.now();
for (let i = 0; i < reps; i++) { const y = gpu.matmul(A, x, { kernel: "compute" }); x.free(); x = y; }
await gpu.finish();
const throughTexla = (performance.now() - t0) / reps;
// One read-back of the n x n result, as the benchmark's resident chain ends with.
t0 = performance.now();
await x.read();
const readMs = performance.now() - t0;

// The same WGSL on a device of our own.
const adapter = await navigator.gpu.requestAdapter({ powerPreference: "high-performance" });
const device = await adapter.requestDevice({ requiredLimits: {
  maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
  maxTextureDimension2D: adapter.limits.maxTextureDimension2D } });
const module = device.createShaderModule({ code: wgsl });
const pipeline = device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "cs_main" } });
const texture = () => device.createTexture({ size: [n, n / 4], format: "rgba32float",
  usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.STORAGE_BINDING | GPUTextureUsage.COPY_DST });
const [a, b, c] = [texture(), texture(), texture()];
// Shapes (rows, cols, width, height) of the output, then the inputs; then 8 zero parameters.
const shapes = new Int32Array(8 * 4 + 8);
for (const slot of [0, 1, 2]) shapes.set([n, n, n, n / 4], 4 * slot);
const uniforms = device.createBuffer({ size: shapes.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(uniforms, 0, shapes);
const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
  { binding: 0, resource: { buffer: uniforms } },
  { binding: 1, resource: a.createView() },
  { binding: 2, resource: b.createView() },
  { binding: 7, resource: c.createView() } ] });
async function dispatches(count, perSubmit) {
  const start = performance.now();
  for (let done = 0; done < count; done += perSubmit) {
    const encoder = device.createCommandEncoder();
    for (let i = 0; i < perSubmit; i++) {
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(n / 128, n / 4 / 32);
      pass.end();
    }
    device.queue.submit([encoder.finish()]);
  }
  await device.queue.onSubmittedWorkDone();
  return (performance.now() - start) / count;
}
await dispatches(2, 1);
const oneEncoder = await dispatches(reps, reps);
const oneSubmitEach = await dispatches(reps, 1);
const tflops = (ms) => ((2 * n ** 3) / (ms * 1e9)).toFixed(2);
console.log(`n = ${n}: through texla ${throughTexla.toFixed(2)} ms (${tflops(throughTexla)} TFLOPS); ` +
  `the same WGSL alone: ${oneEncoder.toFixed(2)} ms (${tflops(oneEncoder)} TFLOPS) with ${reps} dispatches per submit, ` +
  `${oneSubmitEach.toFixed(2)} ms (${tflops(oneSubmitEach)} TFLOPS) with one submit each; ` +
  `one read-back of the ${n} x ${n} result through texla: ${readMs.toFixed(1)} ms`);
process.exit(0);
