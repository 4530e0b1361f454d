// The compute-path A·x kernels through Dawn, without texla: the WGSL that native_bench
// --matvec-shapes wrote (the product's kernel and every shape of src/bin/native_bench/
// matvec_shapes.rs) in pipelines of their own, each timed as a chain of dispatches in one
// submission (one pass each, as texla records them), two rounds interleaved; every result
// checked against float64 on all rows. What Tint makes of each shape, beside what naga made of
// it natively.
//
//   node matvec-shapes.mjs --dir DIR [--n 4096,8192] [--chain 100] [--reps 5]
import fs from "node:fs";
import path from "node:path";
import { create, globals } from "webgpu";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const dir = arg("dir", ".");
const sizes = String(arg("n", "4096,8192")).split(",").map(Number);
const chain = Number(arg("chain", 100));
const reps = Number(arg("reps", 5));
const kernels = JSON.parse(fs.readFileSync(path.join(dir, "matvec-shapes.json"), "utf8"));

Object.assign(globalThis, globals);
const gpu = create([]);
const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
console.log(`adapter: ${JSON.stringify(adapter.info)}`);
const device = await adapter.requestDevice({ requiredLimits: {
  maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
  maxTextureDimension2D: adapter.limits.maxTextureDimension2D,
  maxBufferSize: adapter.limits.maxBufferSize } });
device.addEventListener("uncapturederror", (e) => console.error(`device error: ${e.error.message}`));
const pipelines = kernels.map((k) => ({ ...k, pipeline: device.createComputePipeline({ layout: "auto",
  compute: { module: device.createShaderModule({ code: fs.readFileSync(path.join(dir, k.file), "utf8") }), entryPoint: "cs_main" } }) }));

function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
const U = GPUTextureUsage;

const best = {};
for (const n of sizes) {
  const next = mulberry32(n);
  const h = Math.ceil(n / 4);
  // A packed as texla packs it: texel (x, y) holds rows 4y .. 4y + 3 of column x.
  const texels = new Float32Array(4 * n * h);
  const rowsA = new Float32Array(n * n);
  for (let i = 0; i < n * n; i++) rowsA[i] = 2 * next() - 1;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) texels[4 * ((i >> 2) * n + j) + (i & 3)] = rowsA[i * n + j];
  const x = new Float32Array(n).map(() => 2 * next() - 1);
  const exact = new Float64Array(n);
  const bound = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let e = 0, s = 0;
    for (let j = 0; j < n; j++) { const t = rowsA[i * n + j] * x[j]; e += t; s += Math.abs(t); }
    exact[i] = e;
    bound[i] = 2 * (n + 2) * 2 ** -24 * s + 1e-300; // texla's dot_error_bound (src/reference.rs)
  }
  const texture = (w, hh, usage) => device.createTexture({ size: [w, hh], format: "rgba32float", usage });
  const a = texture(n, h, U.TEXTURE_BINDING | U.COPY_DST);
  device.queue.writeTexture({ texture: a }, texels, { bytesPerRow: 16 * n, rowsPerImage: h }, [n, h]);
  const xt = texture(1, h, U.TEXTURE_BINDING | U.COPY_DST);
  device.queue.writeTexture({ texture: xt }, x, { bytesPerRow: 16, rowsPerImage: h }, [1, h]);
  const y = texture(1, h, U.STORAGE_BINDING | U.COPY_SRC);
  // Shapes (rows, cols, width, height) of the output, then the inputs; then 8 zero parameters.
  const shapes = new Int32Array(8 * 4 + 8);
  shapes.set([n, 1, 1, h], 0);
  shapes.set([n, n, n, h], 4);
  shapes.set([n, 1, 1, h], 8);
  const uniforms = device.createBuffer({ size: shapes.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(uniforms, 0, shapes);
  const readBuf = device.createBuffer({ size: 256 * h, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const check = async () => {
    const enc = device.createCommandEncoder();
    enc.copyTextureToBuffer({ texture: y }, { buffer: readBuf, bytesPerRow: 256, rowsPerImage: h }, [1, h]);
    device.queue.submit([enc.finish()]);
    await readBuf.mapAsync(GPUMapMode.READ);
    const got = new Float32Array(readBuf.getMappedRange().slice(0));
    readBuf.unmap();
    let worst = 0;
    for (let i = 0; i < n; i++) {
      const r = Math.abs(got[64 * (i >> 2) + (i & 3)] - exact[i]) / bound[i];
      worst = Math.max(worst, Number.isNaN(r) ? Infinity : r);
    }
    return worst;
  };
  const runs = pipelines.map((p) => ({ ...p, bindGroup: device.createBindGroup({ layout: p.pipeline.getBindGroupLayout(0), entries: [
    { binding: 0, resource: { buffer: uniforms } },
    { binding: 1, resource: a.createView() },
    { binding: 2, resource: xt.createView() },
    { binding: 7, resource: y.createView() } ] }) }));
  const dispatches = async (p, count) => {
    const start = performance.now();
    const enc = device.createCommandEncoder();
    for (let i = 0; i < count; i++) {
      const pass = enc.beginComputePass();
      pass.setPipeline(p.pipeline);
      pass.setBindGroup(0, p.bindGroup);
      pass.dispatchWorkgroups(1, Math.ceil(h / p.rowsPerGroup));
      pass.end();
    }
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    return (performance.now() - start) / count;
  };
  // Warm the GPU's clock up (the first kernel would pay for the climb).
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) await dispatches(runs[0], chain);
  for (let round = 1; round <= 2; round++) {
    for (const p of runs) {
      await dispatches(p, 3);
      const ms = [];
      for (let r = 0; r < reps; r++) ms.push(await dispatches(p, chain));
      const worst = await check();
      const m = median(ms);
      const gbs = (4 * n * n) / (m * 1e6);
      const key = `${p.name} n=${n}`;
      if (worst <= 1) best[key] = Math.max(best[key] ?? 0, gbs);
      console.log(`n=${n} r${round} ${p.name.padEnd(20)} ${(m * 1000).toFixed(1).padStart(8)} us ${gbs.toFixed(0).padStart(6)} GB/s (${(gbs / 33.5).toFixed(1)}% of 3.35 TB/s) check ${worst <= 1 ? "ok" : "WRONG"} (worst ${worst.toExponential(2)} of bound) [${ms.map((v) => (v * 1000).toFixed(1)).join(" ")}]`);
    }
  }
  [a, xt, y].forEach((t) => t.destroy());
}
console.log(`\nBest of two rounds through Dawn, GB/s (${chain} dispatches a submission):`);
for (const p of pipelines) console.log(`${p.name.padEnd(20)} ${sizes.map((n) => String((best[`${p.name} n=${n}`] ?? 0).toFixed(0)).padStart(8)).join(" ")}`);
process.exit(0);
