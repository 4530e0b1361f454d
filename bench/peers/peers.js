// The peer benchmark's page: texla (every path of www/paths.js on WebGPU and on WebGL2), TF.js
// (WebGL and WebGPU backends), jax-js (WebGPU, WebGL), ONNX Runtime Web (its WebGPU, WebGL and
// wasm execution providers), gpu.js (WebGL2) and JavaScript float64 multiply the same n x n
// matrices, which come from the same seeded generator as the page's products benchmark. Every
// peer is served from this folder's node_modules, never from a CDN.
// run.mjs drives it: `await bench.setup(n)`, then `await bench.run(name, plan)` for each name of
// `bench.entries()`. Errors are against the same float64 reference (www/reference/products.js, in a worker).

import init, { Gpgpu } from "../../pkg/texla.js";
import { compare } from "../../www/reference/products.js";
import { reference, referenceTiming } from "../../www/reference/worker-client.js";
import { productMatrices } from "../../www/benchmark/bench.js";
import { MATMUL_PATHS, step } from "../../www/paths.js";
import { identityModel, matmulChainModel } from "../dawn/onnx-matmul.mjs";

const log = (text) => {
  document.getElementById("log").textContent += `${text}\n`;
};

let n = 0;
let a = null;
let b = null;
const exact = {}; // "ab" and "aa": {c, s} in float64

/**
 * A library under test. `init()` opens it (outside any timing); `e2e()` uploads A and B,
 * multiplies, reads back and resolves to the product as a flat row-major Float32Array;
 * `prepare()` uploads A and B and waits until they are on the GPU; `chain(count)` multiplies
 * X <- X·B `count` times starting from X = A and reads X back once; `release()` frees the
 * prepared matrices; `memory()` is the library's own count of peak bytes, where it has one.
 */
function texlaEntry(backend, path) {
  let gpu = null;
  let ga = null;
  let gb = null;
  return {
    name: `texla ${backend} ${path.name}`,
    kind: "texla",
    backend,
    square: !!path.square,
    async init() {
      gpu = texlaDevices[backend] ?? (texlaDevices[backend] = await Gpgpu.create(backend));
      if (gpu.backend !== backend) throw new Error(`asked for ${backend}, got ${gpu.backend}`);
      gpu.releasePooled();
      gpu.resetPeak?.(); // a build older than memory().peakBytes has none
      return `${gpu.capabilities().adapter}`;
    },
    async e2e() {
      const x = gpu.upload(a, n, n);
      const y = path.square ? null : gpu.upload(b, n, n);
      const c = step(gpu, path, x, y);
      const out = await c.read();
      [x, y, c].forEach((m) => m?.free());
      return out;
    },
    async prepare() {
      ga = gpu.upload(a, n, n);
      gb = path.square ? null : gpu.upload(b, n, n);
      await gpu.finish();
    },
    async chain(count) {
      let x = ga;
      for (let i = 0; i < count; i++) {
        const y = step(gpu, path, x, gb);
        if (x !== ga) x.free();
        x = y;
      }
      const out = await x.read();
      x.free();
      return out;
    },
    release() {
      ga?.free();
      gb?.free();
      gpu.releasePooled();
    },
    memory: () => gpu.memory().peakBytes ?? null,
  };
}
const texlaDevices = {};

/** TF.js on `backend` ("webgl" or "webgpu"). */
function tfEntry(backend, label) {
  let ta = null;
  let tb = null;
  return {
    name: label,
    kind: "peer",
    backend,
    async init() {
      if (!(await tf.setBackend(backend))) throw new Error(`TF.js could not start its ${backend} backend`);
      await tf.ready();
      if (tf.getBackend() !== backend) throw new Error(`TF.js runs ${tf.getBackend()}, not ${backend}`);
      const flags = backend === "webgl"
        ? `WEBGL_VERSION ${tf.env().getNumber("WEBGL_VERSION")}, float32 render ${tf.env().getBool("WEBGL_RENDER_FLOAT32_ENABLED")}, packed ${tf.env().getBool("WEBGL_PACK")}`
        : "float32";
      return `TF.js ${tf.version.tfjs}, ${flags}`;
    },
    async e2e() {
      const x = tf.tensor2d(a, [n, n]);
      const y = tf.tensor2d(b, [n, n]);
      const c = tf.matMul(x, y);
      const out = await c.data();
      tf.dispose([x, y, c]);
      return out;
    },
    async prepare() {
      ta = tf.tensor2d(a, [n, n]);
      tb = tf.tensor2d(b, [n, n]);
      // TF.js uploads a tensor when a GPU program first reads it: make both resident now.
      const touch = tf.add(ta, tb);
      await touch.data();
      touch.dispose();
    },
    async chain(count) {
      let x = ta;
      for (let i = 0; i < count; i++) {
        const y = tf.matMul(x, tb);
        if (x !== ta) x.dispose();
        x = y;
      }
      const out = await x.data();
      x.dispose();
      return out;
    },
    release() {
      tf.dispose([ta, tb]);
    },
    memory: () => null,
  };
}

/**
 * jax-js on `device` ("webgpu" or "webgl"): `np.array(a, { shape, device })`, `np.matmul` (eager,
 * no `jit`), `data()` (which reads back and frees: every jax-js call takes ownership of its
 * arguments, `.ref` keeps one). Resident: A and B as arrays on the device, realized with
 * `blockUntilReady()`.
 */
let jaxModule = null;
let jaxDevices = null;
function jaxEntry(device, label) {
  let np = null;
  let ja = null;
  let jb = null;
  const matrix = (data) => np.array(data, { shape: [n, n], device });
  return {
    name: label,
    kind: "peer",
    backend: device,
    async init() {
      if (!jaxModule) {
        jaxModule = await import("./node_modules/@jax-js/jax/dist/index.js");
        jaxDevices = await jaxModule.init();
      }
      if (!jaxDevices.includes(device)) throw new Error(`jax-js has no ${device} device here (${jaxDevices.join(", ")})`);
      np = jaxModule.numpy;
      const { version } = await (await fetch("node_modules/@jax-js/jax/package.json")).json();
      return `jax-js ${version}, device ${device}, float32`;
    },
    async e2e() {
      return np.matmul(matrix(a), matrix(b)).data();
    },
    async prepare() {
      ja = await matrix(a).blockUntilReady();
      jb = await matrix(b).blockUntilReady();
    },
    async chain(count) {
      let x = ja.ref;
      for (let i = 0; i < count; i++) x = np.matmul(x, jb.ref);
      return x.data();
    },
    release() {
      ja?.dispose();
      jb?.dispose();
      ja = jb = null;
    },
    memory: () => null,
  };
}

/**
 * ONNX Runtime Web on execution provider `ep` ("webgpu", "webgl" or "wasm"), running the
 * one-node MatMul model of bench/dawn/onnx-matmul.mjs (written as protobuf bytes there). End-to-end:
 * one `run` on CPU tensors, its output read on the CPU. Resident, on WebGPU: GPU tensors (A and B
 * up through an Identity model with `preferredOutputLocation: "gpu-buffer"`, count - 1 runs with
 * GPU output fed back, a last one with CPU output). On WebGL and wasm, whose tensors a page cannot
 * keep on the device between runs in the same way, one run of a graph of `count` chained MatMuls
 * (A and B uploaded by that run, the intermediates kept by ORT).
 */
let ortModule = null;
function ortEntry(ep, label) {
  let ort = null;
  const s = {};
  let ga = null;
  let gb = null;
  const tensor = (data) => new ort.Tensor("float32", data, [n, n]);
  const session = (model, options = {}) => ort.InferenceSession.create(model, { executionProviders: [ep], ...options });
  return {
    name: label,
    kind: "peer",
    backend: ep === "wasm" ? "cpu" : ep,
    async init() {
      if (!ortModule) {
        ortModule = await import("./node_modules/onnxruntime-web/dist/ort.all.min.mjs");
        ortModule.env.wasm.wasmPaths = new URL("node_modules/onnxruntime-web/dist/", location.href).href;
      }
      ort = ortModule;
      s.matmul ??= await session(matmulChainModel(n, 1));
      const { version } = await (await fetch("node_modules/onnxruntime-web/package.json")).json();
      const threads = ep === "wasm" ? `, ${ort.env.wasm.numThreads ?? "default"} threads (crossOriginIsolated ${self.crossOriginIsolated})` : "";
      return `onnxruntime-web ${version}, EP ${ep}${threads}, float32`;
    },
    async e2e() {
      return (await s.matmul.run({ X: tensor(a), B: tensor(b) })).Y.getData();
    },
    async prepare(count) {
      if (ep !== "webgpu") {
        // The chained graph's session, made and run once here (outside the timed chains).
        s.chains ??= {};
        s.chains[count] ??= await session(matmulChainModel(n, count));
        await (await s.chains[count].run({ X: tensor(a), B: tensor(b) })).Y.getData();
        return;
      }
      s.up ??= await session(identityModel(n, n), { preferredOutputLocation: "gpu-buffer" });
      s.matmulGpu ??= await session(matmulChainModel(n, 1), { preferredOutputLocation: "gpu-buffer" });
      ga = (await s.up.run({ X: tensor(a) })).Y;
      gb = (await s.up.run({ X: tensor(b) })).Y;
    },
    async chain(count) {
      if (ep !== "webgpu") {
        s.chains ??= {};
        s.chains[count] ??= await session(matmulChainModel(n, count));
        return (await s.chains[count].run({ X: tensor(a), B: tensor(b) })).Y.getData();
      }
      let x = ga;
      for (let i = 0; i < count - 1; i++) {
        const y = (await s.matmulGpu.run({ X: x, B: gb })).Y;
        if (x !== ga) x.dispose();
        x = y;
      }
      const out = (await s.matmul.run({ X: x, B: gb })).Y.getData();
      if (x !== ga) x.dispose();
      return out;
    },
    async release() {
      ga?.dispose();
      gb?.dispose();
      ga = gb = null;
      for (const k of Object.keys(s)) {
        if (k === "chains") for (const c of Object.values(s.chains)) await c.release();
        else await s[k].release();
        delete s[k];
      }
    },
    memory: () => null,
  };
}

/** gpu.js in its WebGL2 mode, single precision: one fragment per output element. */
function gpujsEntry() {
  let gpu = null;
  let mulArrays = null;
  let mulTextures = null;
  let load = null;
  let ta = null;
  let tb = null;
  const kernel = function (x, y) {
    let sum = 0;
    for (let i = 0; i < this.constants.n; i++) sum += x[this.thread.y][i] * y[i][this.thread.x];
    return sum;
  };
  return {
    name: "gpu.js WebGL2",
    kind: "peer",
    backend: "webgl2",
    async init() {
      gpu = new GPU.GPU({ mode: "webgl2" });
      if (gpu.mode !== "webgl2") throw new Error(`gpu.js runs in mode ${gpu.mode}, not webgl2`);
      const settings = { output: [n, n], constants: { n }, loopMaxIterations: n, precision: "single", tactic: "precision" };
      mulArrays = gpu.createKernel(kernel, settings);
      mulTextures = gpu.createKernel(kernel, { ...settings, pipeline: true, immutable: true });
      load = gpu.createKernel(function (x) {
        return x[this.thread.y][this.thread.x];
      }, { output: [n, n], precision: "single", pipeline: true, immutable: true });
      const { version } = await (await fetch("node_modules/gpu.js/package.json")).json();
      return `gpu.js ${version}, mode ${gpu.mode}, precision single`;
    },
    async e2e() {
      const rows = mulArrays(GPU.input(a, [n, n]), GPU.input(b, [n, n]));
      return flatten(rows);
    },
    async prepare() {
      ta = load(GPU.input(a, [n, n]));
      tb = load(GPU.input(b, [n, n]));
      ta.toArray(); // waits until both are on the GPU (GL runs in order)
    },
    async chain(count) {
      let x = ta;
      for (let i = 0; i < count; i++) {
        const y = mulTextures(x, tb);
        if (x !== ta) x.delete();
        x = y;
      }
      const out = flatten(x.toArray());
      x.delete();
      return out;
    },
    release() {
      ta?.delete();
      tb?.delete();
      gpu.destroy();
    },
    memory: () => null,
  };
}

/** gpu.js returns one Float32Array per row. */
function flatten(rows) {
  const out = new Float32Array(n * n);
  rows.forEach((r, i) => out.set(r, i * n));
  return out;
}

const ENTRIES = [
  // The paths of www/paths.js.
  ...["webgpu", "webgl2"].flatMap((backend) =>
    MATMUL_PATHS.filter((p) => p.backends.includes(backend)).map((p) => () => texlaEntry(backend, p)),
  ),
  () => tfEntry("webgl", "TF.js WebGL"),
  () => tfEntry("webgpu", "TF.js WebGPU"),
  () => jaxEntry("webgpu", "jax-js WebGPU"),
  () => jaxEntry("webgl", "jax-js WebGL"),
  () => ortEntry("webgpu", "ORT Web WebGPU"),
  () => ortEntry("webgl", "ORT Web WebGL"),
  () => ortEntry("wasm", "ORT Web wasm"),
  () => gpujsEntry(),
];

const entries = new Map();

/** Makes the matrices of order `n` and their float64 products A·B and A·A. */
async function setup(order) {
  n = order;
  ({ a, b } = productMatrices(n));
  entries.clear();
  for (const make of ENTRIES) {
    const e = make();
    entries.set(e.name, e);
  }
  log(`n = ${n}: float64 references`);
  exact.ab = await reference(a, b, n, n, n);
  const squares = [...entries.values()].some((e) => e.square);
  if (squares) exact.aa = await reference(a, a, n, n, n);
  const missing = MATMUL_PATHS.filter((p) => typeof Gpgpu.prototype[p.method] !== "function").map((p) => p.method);
  return { entries: [...entries.values()].map((e) => ({ name: e.name, kind: e.kind, backend: e.backend })), missing };
}

/** Best of `reps` of `run` (async, resolving to a product), after `warm` untimed runs. */
async function timed(run, warm, reps) {
  for (let i = 0; i < warm; i++) await run();
  let bestMs = Infinity;
  let out = null;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    out = await run();
    bestMs = Math.min(bestMs, performance.now() - t0);
  }
  return { ms: bestMs, out };
}

/**
 * Times `name` at the current n following `plan` = {warm, reps, chain, resident}: end-to-end
 * (best of `reps` after `warm` untimed runs; 0 warm-up runs means the time includes shader
 * compilation), then, if `resident`, one untimed chained product and the best of `reps` chains
 * of `chain` products. Resolves to {e2eMs, residentMs, maxRel, boundRatio, peakBytes (at the
 * API), poolPeakBytes (texla's own count), info}.
 */
async function run(name, plan) {
  const gflops = (count, ms) => (count * 2 * n ** 3) / (ms * 1e6);
  if (name === "JavaScript float64") {
    log(`n = ${n}: ${name}`);
    let ms = Infinity;
    for (let r = 0; r < plan.reps; r++) ms = Math.min(ms, await referenceTiming(a, b, n, n, n));
    const e2e = gflops(1, ms);
    return { e2eMs: ms, e2e, residentMs: null, resident: null, info: "matmulOnly64 in a worker (www/reference/products.js)" };
  }
  const e = entries.get(name);
  if (!e) throw new Error(`no entry ${name}`);
  gpuBytes.owner = name;
  const info = await e.init();
  gpuBytes.resetPeak(name);
  log(`n = ${n}: ${name}, end-to-end`);
  const e2e = await timed(() => e.e2e(), plan.warm, plan.reps);
  const ref = e.square ? exact.aa : exact.ab;
  const err = compare(e2e.out, ref.c, ref.s, n);
  let residentMs = null;
  if (plan.resident) {
    log(`n = ${n}: ${name}, resident (${plan.chain} chained)`);
    await e.prepare(plan.chain);
    await e.chain(1); // compiles what the chained kind of call needs, if anything
    residentMs = (await timed(() => e.chain(plan.chain), 0, plan.reps)).ms;
  }
  const poolPeakBytes = e.memory();
  await e.release();
  const bytes = gpuBytes.of(name);
  gpuBytes.owner = "page";
  return {
    e2eMs: e2e.ms,
    e2e: gflops(1, e2e.ms),
    residentMs,
    resident: residentMs === null ? null : gflops(plan.chain, residentMs),
    maxRel: err.maxRel,
    boundRatio: err.worstRatio,
    peakBytes: bytes.peak,
    poolPeakBytes,
    info,
  };
}

window.bench = { setup, run, unknownFormats: () => gpuBytes.all().unknown };
window.benchReady = init().then(() => true);
