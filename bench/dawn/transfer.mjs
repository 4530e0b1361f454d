// Where the time of a large upload and read-back goes through Dawn: the raw WebGPU steps (copy,
// map, getMappedRange, the copy into a JavaScript array, unmap) timed one by one, beside texla's
// `upload`/`read` and TF.js's `tensor`/`data` of the same sizes in the same process. The
// benchmark's "resident" figure ends with one read-back, and its end-to-end one is mostly
// transfers, so these steps decide both.
//
//   node transfer.mjs --pkg DIR [--mib 4,16,64,256] [--reps 5]
import { arg, findPkg, openTexla, peerGlobals } from "./dawn.mjs";

const sizes = String(arg("mib", "4,16,64,256")).split(",").map(Number);
const reps = Number(arg("reps", 5));
const { gpu, gpuApi } = await openTexla({ pkgDir: findPkg(import.meta.dirname), requireGpu: process.argv.includes("--require-gpu") });
await peerGlobals(gpuApi); // the GPU* constants here, navigator.gpu for TF.js
const adapter = await gpuApi.requestAdapter({ powerPreference: "high-performance" });
const device = await adapter.requestDevice({ requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize, maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize } });
const B = GPUBufferUsage;
const now = () => performance.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fmt = (ms) => ms.toFixed(2).padStart(8);
/** Submits a copy of `bytes` from one buffer to another. */
const copy = (from, to, bytes) => {
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(from, 0, to, 0, bytes);
  device.queue.submit([enc.finish()]);
};

const tf = await import("@tensorflow/tfjs-core");
await import("@tensorflow/tfjs-backend-webgpu");
await tf.setBackend("webgpu");
await tf.ready();

const rows = [];
function record(name, mib, steps) {
  const m = Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, median(v)]));
  const total = Object.values(m).reduce((a, b) => a + b, 0);
  rows.push({ name, mib, ...m, total });
  const all = Object.entries(steps).map(([k, v]) => `${k} [${v.map((x) => x.toFixed(1)).join(" ")}]`).join(" ");
  console.log(`${String(mib).padStart(4)} MiB ${name.padEnd(34)} ${Object.entries(m).map(([k, v]) => `${k} ${fmt(v)}`).join("  ")}  | total ${fmt(total)} ms, ${(mib / 1024 / (total / 1000)).toFixed(2)} GiB/s`);
  console.log(`          each run: ${all}`);
}

for (const mib of sizes) {
  const bytes = mib << 20;
  const n = bytes / 4;
  const data = new Float32Array(n).map((_, i) => (i % 1000) / 7);
  const src = device.createBuffer({ size: bytes, usage: B.STORAGE | B.COPY_SRC | B.COPY_DST });
  device.queue.writeBuffer(src, 0, data);
  await device.queue.onSubmittedWorkDone();

  // Read-back, raw: one kept MAP_READ buffer, and a fresh one each time.
  for (const fresh of [false, true]) {
    let kept = fresh ? null : device.createBuffer({ size: bytes, usage: B.MAP_READ | B.COPY_DST });
    for (const copyOut of ["slice", "set"]) {
      const steps = { copy: [], map: [], range: [], js: [], unmap: [] };
      for (let r = 0; r < reps; r++) {
        const dst = kept ?? device.createBuffer({ size: bytes, usage: B.MAP_READ | B.COPY_DST });
        let t = now();
        copy(src, dst, bytes);
        await device.queue.onSubmittedWorkDone();
        let u = now(); steps.copy.push(u - t); t = u;
        await dst.mapAsync(GPUMapMode.READ);
        u = now(); steps.map.push(u - t); t = u;
        const range = dst.getMappedRange();
        u = now(); steps.range.push(u - t); t = u;
        let out;
        if (copyOut === "slice") out = new Float32Array(range.slice(0));
        else { out = new Float32Array(n); out.set(new Float32Array(range)); }
        u = now(); steps.js.push(u - t); t = u;
        dst.unmap();
        if (!kept) dst.destroy();
        steps.unmap.push(now() - t);
        if (out[n - 1] !== data[n - 1]) throw new Error("raw read-back is wrong");
      }
      record(`raw read, ${fresh ? "fresh" : "kept"} buffer, ${copyOut}`, mib, steps);
    }
    kept?.destroy();
  }

  // Read-back, raw, split: kept MAP_READ buffers of `chunk` MiB each, filled by one submit,
  // mapped together, copied into one array (fresh, or touched before).
  for (const chunk of [4, 8, 16, 32].filter((c) => c < mib)) {
    const parts = Array.from({ length: mib / chunk }, () => device.createBuffer({ size: chunk << 20, usage: B.MAP_READ | B.COPY_DST }));
    const touched = new Float32Array(n).fill(1);
    for (const into of ["fresh", "touched"]) {
      const steps = { copyMap: [], js: [], unmap: [] };
      for (let r = 0; r < reps; r++) {
        let t = now();
        const enc = device.createCommandEncoder();
        parts.forEach((p, i) => enc.copyBufferToBuffer(src, i * (chunk << 20), p, 0, chunk << 20));
        device.queue.submit([enc.finish()]);
        await Promise.all(parts.map((p) => p.mapAsync(GPUMapMode.READ)));
        let u = now(); steps.copyMap.push(u - t); t = u;
        const out = into === "fresh" ? new Float32Array(n) : touched;
        parts.forEach((p, i) => out.set(new Float32Array(p.getMappedRange()), i * (chunk << 18)));
        u = now(); steps.js.push(u - t); t = u;
        parts.forEach((p) => p.unmap());
        steps.unmap.push(now() - t);
        if (out[n - 1] !== data[n - 1]) throw new Error("split read-back is wrong");
      }
      record(`raw read, ${mib / chunk} kept x ${chunk} MiB, ${into}`, mib, steps);
    }
    parts.forEach((p) => p.destroy());
  }

  // Calibration: the same copies between plain JavaScript arrays, and reading a kept mapping
  // without allocating (a sum, and a set into an array touched before).
  {
    const steps = { alloc: [], set: [], sliced: [] };
    const plain = new Float32Array(n).fill(1);
    for (let r = 0; r < reps; r++) {
      let t = now();
      const out = new Float32Array(n);
      let u = now(); steps.alloc.push(u - t); t = u;
      out.set(data);
      u = now(); steps.set.push(u - t); t = u;
      plain.slice();
      steps.sliced.push(now() - t);
    }
    record("plain JS arrays: alloc, set, slice", mib, steps);
  }
  {
    const kept = device.createBuffer({ size: bytes, usage: B.MAP_READ | B.COPY_DST });
    const out = new Float32Array(n).fill(1);
    const steps = { map: [], sum: [], setTouched: [], unmap: [] };
    for (let r = 0; r < reps; r++) {
      copy(src, kept, bytes);
      let t = now();
      await kept.mapAsync(GPUMapMode.READ);
      const view = new Float32Array(kept.getMappedRange());
      let u = now(); steps.map.push(u - t); t = u;
      let s = 0;
      for (let i = 0; i < n; i += 16) s += view[i];
      u = now(); steps.sum.push(u - t); t = u;
      out.set(view);
      u = now(); steps.setTouched.push(u - t); t = u;
      kept.unmap();
      steps.unmap.push(now() - t);
      if (s < 0) throw new Error("unreachable");
    }
    kept.destroy();
    record("raw read, kept: sum(1/16), set into touched", mib, steps);
  }

  // Upload, raw: a kept MAP_WRITE buffer mapped again for each upload.
  {
    const up = device.createBuffer({ size: bytes, usage: B.MAP_WRITE | B.COPY_SRC });
    const steps = { map: [], js: [], unmap: [], gpu: [] };
    for (let r = 0; r < reps; r++) {
      let t = now();
      await up.mapAsync(GPUMapMode.WRITE);
      const range = up.getMappedRange();
      let u = now(); steps.map.push(u - t); t = u;
      new Float32Array(range).set(data);
      u = now(); steps.js.push(u - t); t = u;
      up.unmap();
      u = now(); steps.unmap.push(u - t); t = u;
      copy(up, src, bytes);
      await device.queue.onSubmittedWorkDone();
      steps.gpu.push(now() - t);
    }
    up.destroy();
    record("raw upload, kept MAP_WRITE buffer", mib, steps);
  }

  // Upload, raw: writeBuffer, and a mappedAtCreation buffer copied over.
  {
    const steps = { write: [], gpu: [] };
    for (let r = 0; r < reps; r++) {
      let t = now();
      device.queue.writeBuffer(src, 0, data);
      let u = now(); steps.write.push(u - t); t = u;
      await device.queue.onSubmittedWorkDone();
      steps.gpu.push(now() - t);
    }
    record("raw upload, writeBuffer", mib, steps);
  }
  {
    const steps = { create: [], js: [], unmap: [], gpu: [] };
    for (let r = 0; r < reps; r++) {
      let t = now();
      const up = device.createBuffer({ size: bytes, usage: B.MAP_WRITE | B.COPY_SRC, mappedAtCreation: true });
      let u = now(); steps.create.push(u - t); t = u;
      new Float32Array(up.getMappedRange()).set(data);
      u = now(); steps.js.push(u - t); t = u;
      up.unmap();
      u = now(); steps.unmap.push(u - t); t = u;
      copy(up, src, bytes);
      await device.queue.onSubmittedWorkDone();
      up.destroy();
      steps.gpu.push(now() - t);
    }
    record("raw upload, mappedAtCreation", mib, steps);
  }
  src.destroy();

  // texla and TF.js, a square matrix of the same bytes where it is one (else n x 1024).
  const cols = 1024;
  const rowsN = n / cols;
  {
    const steps = { upload: [], finish: [], read: [] };
    for (let r = 0; r < reps; r++) {
      let t = now();
      const m = gpu.upload(data, rowsN, cols);
      let u = now(); steps.upload.push(u - t); t = u;
      await gpu.finish();
      u = now(); steps.finish.push(u - t); t = u;
      const back = await m.read();
      steps.read.push(now() - t);
      m.free();
      for (let i = 0; i < n; i++) if (back[i] !== data[i]) throw new Error(`texla read-back is wrong at ${i}`);
    }
    record(`texla upload/read ${rowsN}x${cols}`, mib, steps);
  }
  {
    const steps = { upload: [], data: [] };
    for (let r = 0; r < reps; r++) {
      let t = now();
      const x = tf.tensor2d(data, [rowsN, cols]);
      const y = tf.add(x, 0); // forces the upload
      let u = now(); steps.upload.push(u - t); t = u;
      const back = await y.data();
      steps.data.push(now() - t);
      tf.dispose([x, y]);
      if (Math.abs(back[n - 1] - data[n - 1]) > 1e-6) throw new Error("TF.js read-back is wrong");
    }
    record(`tfjs tensor+add/data ${rowsN}x${cols}`, mib, steps);
  }
}
console.log(JSON.stringify({ transfer: rows }));
process.exit(0);
