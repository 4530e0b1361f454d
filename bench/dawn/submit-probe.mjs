// Which submissions make a map slow through Dawn: raw WebGPU variants, each measured after 20 ms
// idle and back to back (median and range of ms, 15 rounds, variants in turns).
//   node bench/dawn/submit-probe.mjs
import { findPkg, openTexla, peerGlobals } from "./dawn.mjs";

const { gpu, gpuApi } = await openTexla({ pkgDir: findPkg(import.meta.dirname) });
await peerGlobals(gpuApi);
const dev = gpu.device();
const U = GPUBufferUsage;
const src = dev.createBuffer({ size: 256, usage: U.COPY_SRC | U.COPY_DST });
const scratch = dev.createBuffer({ size: 256, usage: U.COPY_SRC | U.COPY_DST });
const kept = dev.createBuffer({ size: 256, usage: U.COPY_DST | U.MAP_READ });
const fresh = () => dev.createBuffer({ size: 256, usage: U.COPY_DST | U.MAP_READ });
const submit = (dst, copies = 1) => {
  const e = dev.createCommandEncoder();
  for (let c = 0; c < copies; c++) e.copyBufferToBuffer(src, 0, dst, 0, 256);
  dev.queue.submit([e.finish()]);
};
const map = async (dst, keep) => { await dst.mapAsync(GPUMapMode.READ); dst.unmap(); if (!keep) dst.destroy(); };
const variants = {
  "1 submit, new buffer": async () => { const d = fresh(); submit(d); await map(d); },
  "1 submit, kept buffer": async () => { submit(kept); await map(kept, true); },
  "1 submit of 2 copies": async () => { const d = fresh(); submit(d, 2); await map(d); },
  "2 submits, same buffer": async () => { const d = fresh(); submit(d); submit(d); await map(d); },
  "other buffer, then 1 submit": async () => { submit(scratch); const d = fresh(); submit(d); await map(d); },
  "empty submit, then 1 submit": async () => { dev.queue.submit([dev.createCommandEncoder().finish()]); const d = fresh(); submit(d); await map(d); },
  "2 submits, workDone, map": async () => { const d = fresh(); submit(d); submit(d); await dev.queue.onSubmittedWorkDone(); await map(d); },
  "1 submit, workDone, map": async () => { const d = fresh(); submit(d); await dev.queue.onSubmittedWorkDone(); await map(d); },
  "writeBuffer, then 1 submit": async () => { dev.queue.writeBuffer(scratch, 0, new Float32Array(64)); const d = fresh(); submit(d); await map(d); },
};
const sleep = (t) => new Promise((done) => setTimeout(done, t));
const ms = {};
for (const f of Object.values(variants)) for (let w = 0; w < 3; w++) await f();
for (let r = 0; r < 15; r++) {
  for (const [name, f] of Object.entries(variants)) {
    for (const idle of [20, 0]) {
      if (idle) await sleep(idle);
      const t0 = performance.now();
      await f();
      (ms[`${name}|${idle}`] ??= []).push(performance.now() - t0);
    }
  }
}
const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
const cell = (v) => `${median(v).toFixed(3)} (${Math.min(...v).toFixed(2)}-${Math.max(...v).toFixed(2)})`;
console.log("| variant | after 20 ms idle, ms | back to back, ms |\n|---|---:|---:|");
for (const name of Object.keys(variants)) console.log(`| ${name} | ${cell(ms[`${name}|20`])} | ${cell(ms[`${name}|0`])} |`);
process.exit(0);
