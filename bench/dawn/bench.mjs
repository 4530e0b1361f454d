// texla's pkg/, TF.js's WebGPU backend and, for products, jax-js and ONNX Runtime's WebGPU EP
// (peers.mjs) on Dawn (Chromium's WebGPU, as the npm package `webgpu`, dawn.node; ORT carries its
// own) in ONE Node process: matrix products, A·x and texla's solvers. Prints a Markdown table and
// writes JSON. See README.md beside this file.
//
//   node bench/dawn/bench.mjs [--sizes 1024,2048,4096,8192] [--mv-sizes 4096,8192] [--reps 5]
//        [--chain 10] [--budget 60] [--deadline SECONDS] [--only matmul,mulvec,solvers]
//        [--paths texla.matmul,tfjs.matMul,...] [--cg-grid 32] [--jacobi-n 1024] [--lcp-n 400]
//        [--lcp-iters 800] [--warm 3] [--pkg DIR] [--out FILE.json] [--md FILE.md]
//        [--dawn-flags "a;b"] [--require-gpu] [--keep-copies]
//
// Output goes to --out / --md; by default to $OUT/dawn-bench.{json,md} where OUT is set, else to
// bench/dawn/results.{json,md}. Both are rewritten after every measurement, so a run cut short
// keeps what it measured.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { arg, findPkg, openTexla, peerGlobals } from "./dawn.mjs";
import { jaxPeer, ortPeer } from "./peers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const list = (s) => String(s).split(",").map((v) => v.trim()).filter(Boolean);
const ints = (name, fallback) => {
  const v = list(arg(name, fallback)).map(Number);
  if (v.some((x) => !Number.isInteger(x) || x < 1)) throw new Error(`bad --${name} ${arg(name, fallback)}`);
  return v;
};

const opts = {
  sizes: ints("sizes", "1024,2048,4096,8192"),
  mvSizes: ints("mv-sizes", "4096,8192"),
  reps: ints("reps", "5")[0],
  chain: ints("chain", "10")[0],
  budget: Number(arg("budget", "60")), // seconds per path and size (e2e and resident each get half)
  deadline: Number(arg("deadline", "0")) || Infinity, // seconds for the whole run
  only: list(arg("only", "matmul,mulvec,solvers")),
  paths: list(arg("paths", "")),
  cgGrid: ints("cg-grid", "32")[0],
  jacobiN: ints("jacobi-n", "1024")[0],
  lcpN: ints("lcp-n", "400")[0],
  lcpIters: ints("lcp-iters", "800")[0],
  samples: 64,
  warm: Number(arg("warm", "3")), // seconds of products before anything is timed
};
const outDir = process.env.OUT || here;
const outJson = arg("out", path.join(outDir, process.env.OUT ? "dawn-bench.json" : "results.json"));
const outMd = arg("md", outJson.replace(/\.json$/, "") + ".md");
const pkgDir = findPkg(here);
const started = performance.now();
const elapsed = () => (performance.now() - started) / 1000;
const log = (s) => console.log(`[${elapsed().toFixed(1).padStart(6)} s] ${s}`);

// ---------------------------------------------------------------------------------------------
// WebGPU in Node and texla on it (dawn.mjs); TF.js wants navigator.gpu when its backend module
// loads (so: peerGlobals, then dynamic imports below).
const { texla, gpu, gpuApi, adapterInfo, dawnFlags } = await openTexla({
  pkgDir,
  flags: arg("dawn-flags", process.env.DAWN_FLAGS || ""),
  requireGpu: process.argv.includes("--require-gpu"),
});
const mainGpu = gpu;
await peerGlobals(gpuApi);

const tf = await import("@tensorflow/tfjs-core");
await import("@tensorflow/tfjs-backend-webgpu");
let tfNote = null;
try {
  if (!(await tf.setBackend("webgpu"))) throw new Error("tf.setBackend('webgpu') returned false");
  await tf.ready();
  if (tf.getBackend() !== "webgpu") throw new Error(`TF.js runs ${tf.getBackend()}`);
  // Keep every product on the GPU (TF.js may hand small ops whose inputs sit on the CPU to its
  // CPU kernels).
  tf.env().set("WEBGPU_CPU_FORWARD", false);
} catch (e) {
  tfNote = `TF.js WebGPU backend unavailable: ${e.message}`;
  console.error(tfNote);
}

// jax-js finds WebGPU through navigator.gpu (set by openTexla): open it only now.
const jaxJs = opts.only.includes("matmul") ? await jaxPeer() : { note: "not opened", entry: null };
const onnx = opts.only.includes("matmul") ? await ortPeer() : { note: "not opened", entry: null };

const readJson = (p) => {
  try {
    return JSON.parse(fs.readFileSync(p, "utf8"));
  } catch {
    return null;
  }
};
const pkgVersion = (name) => readJson(path.join(here, "node_modules", name, "package.json"))?.version ?? null;
const env = {
  date: new Date().toISOString(),
  host: os.hostname(),
  cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? "?"}`,
  node: process.version,
  webgpu: pkgVersion("webgpu"),
  tfjs: tf.version_core ?? pkgVersion("@tensorflow/tfjs-core"),
  tfjsAdapter: (() => {
    const i = tfNote ? null : tf.backend().adapterInfo;
    return i ? { vendor: i.vendor, architecture: i.architecture } : null;
  })(),
  tfjsMatmulProgram: tfNote ? null : tf.env().get("WEBGPU_MATMUL_PROGRAM_TYPE"),
  adapter: adapterInfo,
  texlaAdapter: gpu.capabilities().adapter,
  texlaMaxTextureSize: gpu.capabilities().maxTextureSize,
  tfjsNote: tfNote,
  jaxjs: pkgVersion("@jax-js/jax"),
  jaxjsNote: jaxJs.note,
  onnxruntime: onnx.version ?? pkgVersion("onnxruntime-node"),
  onnxruntimeNote: onnx.note,
  dawnFlags,
  vulkanIcd: process.env.VK_DRIVER_FILES || process.env.VK_ICD_FILENAMES || null,
  options: opts,
  pkg: path.resolve(pkgDir),
};
const results = { env, matmul: [], mulvec: [], solvers: [] };

// ---------------------------------------------------------------------------------------------
// Data: entries uniform in [-1, 1) / sqrt(n) from a seeded generator (chained products shrink by
// about 1/sqrt(3) each, so ten stay well inside float32).
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
function randomMatrix(next, count, scale) {
  const m = new Float32Array(count);
  for (let i = 0; i < count; i++) m[i] = (2 * next() - 1) * scale;
  return m;
}
const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** max |got - exact| / max |exact| over the given pairs (NaN counts as infinite). */
function relError(got, exact) {
  let scale = 0;
  let err = 0;
  for (let i = 0; i < exact.length; i++) {
    scale = Math.max(scale, Math.abs(exact[i]));
    const e = Math.abs(got[i] - exact[i]);
    err = Math.max(err, Number.isNaN(e) ? Infinity : e);
  }
  return scale > 0 ? err / scale : err;
}

/** Whether one more run, taken to last the median of the times so far (`ms`), would take their
 *  total past `seconds` (never before the first run). */
const pastBudget = (ms, seconds) => ms.length > 0 && (ms.reduce((x, y) => x + y, 0) + median(ms)) / 1000 > seconds;

/**
 * Runs `once` (async, returns ms or nothing) up to `reps` times, stopping early when the next run
 * would push the total past `seconds` (at least one run). Median ms and the number of runs.
 */
async function timed(reps, seconds, once) {
  const ms = [];
  while (ms.length < reps && !pastBudget(ms, seconds)) {
    const t0 = performance.now();
    const r = await once();
    ms.push(typeof r === "number" ? r : performance.now() - t0);
  }
  return { ms: median(ms), runs: ms.length, all: ms.map((t) => +t.toFixed(3)) };
}

// A path name ending in "$" is matched exactly ("texla matmul$" is the default product alone).
const wanted = (name) => !opts.paths.length || opts.paths.some((p) => (p.endsWith("$") ? name === p.slice(0, -1) : name === p || name.startsWith(p)));
const left = () => opts.deadline - elapsed();

function save() {
  fs.mkdirSync(path.dirname(outJson), { recursive: true });
  fs.writeFileSync(outJson, JSON.stringify(results, null, 1));
  fs.writeFileSync(outMd, markdown());
}

// ---------------------------------------------------------------------------------------------
// The paths. Each: e2e(a, b, n) -> Float32Array of A·B; prepare(a, b, n); chain(count) ->
// Float32Array of A·B^count (X <- X·B), one read-back; release().
// `into`: texla reads back into an array kept from the run before (`readInto`), not a new one.
// `user`: the calls of a new user on a device opened with `Gpgpu.create("webgpu")`'s defaults
// (the entry "texla default-user"): `matmul(a, b)`, `read()`, nothing released between sizes.
function texlaProduct(method, { kernel, into = false, user = null, dtype } = {}) {
  const gpu = user ? user.gpu : mainGpu;
  const options = kernel ? { kernel } : undefined;
  // Both operands stored as `dtype` ("float16": half the bytes; results stay float32).
  const upload = (data, rows, cols) => (dtype ? gpu.upload(data, rows, cols, { dtype }) : gpu.upload(data, rows, cols));
  let ga = null;
  let gb = null;
  let kept = null;
  const read = (m) => {
    if (!into) return m.read();
    if (kept?.length !== m.rows * m.cols) kept = new Float32Array(m.rows * m.cols);
    return m.readInto(kept);
  };
  return {
    name: user ? "texla default-user" : `texla ${method}${kernel ? ` ${kernel}` : ""}${into ? " into" : ""}${dtype ? ` ${dtype}` : ""}`,
    available:
      !!gpu &&
      typeof gpu[method] === "function" &&
      (!into || typeof texla.GpuMatrix?.prototype.readInto === "function") &&
      (!dtype || "dtype" in (texla.GpuMatrix?.prototype ?? {})),
    async e2e(a, b, n, bCols = n) {
      const x = upload(a, n, n);
      const y = upload(b, n, bCols);
      const c = gpu[method](x, y, options);
      const out = await read(c);
      [x, y, c].forEach((m) => m.free());
      return out;
    },
    async prepare(a, b, n, bCols = n) {
      ga = upload(a, n, n);
      gb = upload(b, n, bCols);
      await gpu.finish();
    },
    // Matrix products chain X <- X·B from X = A; A·x chains x <- A·x from x = b.
    async chain(count, left = true) {
      let x = left ? ga : gb;
      for (let i = 0; i < count; i++) {
        const y = left ? gpu[method](x, gb, options) : gpu[method](ga, x, options);
        if (x !== ga && x !== gb) x.free();
        x = y;
      }
      const out = await read(x);
      x.free();
      return out;
    },
    release() {
      ga?.free();
      gb?.free();
      ga = gb = kept = null;
      if (!user) gpu.releasePooled();
    },
  };
}
function tfProduct() {
  let ta = null;
  let tb = null;
  return {
    name: "tfjs matMul",
    available: !tfNote,
    async e2e(a, b, n, bCols = n) {
      const x = tf.tensor2d(a, [n, n]);
      const y = tf.tensor2d(b, [n, bCols]);
      const c = tf.matMul(x, y);
      const out = await c.data();
      tf.dispose([x, y, c]);
      return out;
    },
    async prepare(a, b, n, bCols = n) {
      ta = tf.tensor2d(a, [n, n]);
      tb = tf.tensor2d(b, [n, bCols]);
      // TF.js uploads a tensor when a GPU program first reads it: make both resident now.
      const touch = tf.tidy(() => tf.add(tf.sum(ta), tf.sum(tb)));
      await touch.data();
      touch.dispose();
    },
    async chain(count, left = true) {
      let x = left ? ta : tb;
      for (let i = 0; i < count; i++) {
        const y = left ? tf.matMul(x, tb) : tf.matMul(ta, x);
        if (x !== ta && x !== tb) x.dispose();
        x = y;
      }
      const out = await x.data();
      x.dispose();
      return out;
    },
    release() {
      tf.dispose([ta, tb]);
      ta = tb = null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A GPU idles at a low clock (345 MHz on the H100) and ramps up under load: `seconds` of texla's
// default products at the smallest n before anything is timed, so that the first entry measured
// (texla's default at that n) is not the one that pays for the ramp.
async function warmGpu(seconds) {
  if (!(seconds > 0)) return;
  const n = Math.min(...opts.sizes);
  const a = gpu.upload(new Float32Array(n * n).fill(1 / n), n, n);
  const t0 = performance.now();
  let products = 0;
  while (performance.now() - t0 < 1000 * seconds) {
    for (let i = 0; i < 10; i++) gpu.matmul(a, a).free();
    await gpu.finish();
    products += 10;
  }
  a.free();
  log(`warm-up: ${products} products of ${n} x ${n} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

// ---------------------------------------------------------------------------------------------
// Matrix products.
async function benchMatmul() {
  await warmGpu(opts.warm);
  // A second texla device as a new user opens it: `Gpgpu.create("webgpu")`, default options.
  const user = wanted("texla default-user") ? { gpu: await texla.Gpgpu.create("webgpu").catch((e) => console.error(`texla default-user: ${e.message}`)) } : {};
  const peers = [tfProduct(), jaxJs.entry?.(), onnx.entry?.()].filter(Boolean);
  const entries = [texlaProduct("matmul"), texlaProduct("matmul", { user }), texlaProduct("matmul", { into: true }), texlaProduct("matmul", { kernel: "teaching" }), texlaProduct("matmul", { kernel: "fast" }), texlaProduct("matmul", { kernel: "compute" }), texlaProduct("matmul", { dtype: "float16" }), ...peers].filter((e) => wanted(e.name));
  const last = {}; // name -> {n, ms}: predicts the next size
  for (const n of opts.sizes) {
    log(`matmul n = ${n}: making matrices and the float64 reference`);
    const next = mulberry32(n);
    const s = 1 / Math.sqrt(n);
    const a = randomMatrix(next, n * n, s);
    const b = randomMatrix(next, n * n, s);
    // ~64 sampled elements of A·B, and of A·B^chain (4 rows carried through the chain, 16 columns each).
    const pick = mulberry32(n ^ 0x5eed);
    const pairs = Array.from({ length: opts.samples }, () => [Math.floor(pick() * n), Math.floor(pick() * n)]);
    const exact = pairs.map(([i, j]) => {
      let sum = 0;
      for (let k = 0; k < n; k++) sum += a[i * n + k] * b[k * n + j];
      return sum;
    });
    const rows = Array.from({ length: 4 }, () => Math.floor(pick() * n));
    const cols = Array.from({ length: opts.samples / 4 }, () => Math.floor(pick() * n));
    const chainExact = [];
    for (const i of rows) {
      let x = Float64Array.from(a.subarray(i * n, (i + 1) * n));
      for (let c = 0; c < opts.chain; c++) {
        const y = new Float64Array(n);
        for (let k = 0; k < n; k++) {
          const xk = x[k];
          const bk = k * n;
          for (let j = 0; j < n; j++) y[j] += xk * b[bk + j];
        }
        x = y;
      }
      for (const j of cols) chainExact.push(x[j]);
    }
    const flops = 2 * n ** 3;
    // The paths measured at this size, each with its row and its runs.
    const live = [];
    for (const e of entries) {
      const row = { n, path: e.name, e2eMs: null, e2eGflops: null, e2eRuns: 0, residentMs: null, residentGflops: null, residentRuns: 0, e2eError: null, residentError: null, note: "" };
      results.matmul.push(row);
      const predicted = last[e.name] ? last[e.name].ms * (n / last[e.name].n) ** 3 : 0;
      if (!e.available) {
        row.note = "error: not in this pkg/ or backend unavailable";
      } else if (predicted / 1000 > Math.min(opts.budget / 2, left())) {
        row.note = `skipped: predicted ${(predicted / 1000).toFixed(1)} s a product`;
      } else {
        live.push({ e, row, e2e: [], res: [], got: null });
        continue;
      }
      log(`${e.name} n = ${n}: ${row.note}`);
    }
    // End-to-end, then resident, the paths taking turns: round r runs each path once, so that
    // no path inherits the garbage, the memory or the clock of another more than the others do.
    log(`matmul n = ${n}: end-to-end, ${live.map((p) => p.e.name).join(", ")} in turn`);
    await turns(live, "e2e", async (p) => { p.got = await p.e.e2e(a, b, n); });
    for (const p of live) {
      const { row, e2e } = p;
      if (!e2e.length) continue;
      row.e2eMs = median(e2e);
      row.e2eRuns = e2e.length;
      row.e2eAllMs = e2e.map((t) => +t.toFixed(3));
      row.e2eGflops = flops / (row.e2eMs * 1e6);
      row.e2eError = relError(pairs.map(([i, j]) => p.got[i * n + j]), exact);
      last[p.e.name] = { n, ms: row.e2eMs };
      if ((opts.chain * row.e2eMs) / 1000 > Math.min(opts.budget / 2, left())) {
        row.note = `resident skipped: predicted ${((opts.chain * row.e2eMs) / 1000).toFixed(1)} s a chain`;
        log(`${p.e.name} n = ${n}: ${row.note}`);
      }
    }
    save();
    const resident = live.filter((p) => p.e2e.length && !p.row.note);
    log(`matmul n = ${n}: resident (${opts.chain} chained), ${resident.map((p) => p.e.name).join(", ")} in turn`);
    try {
      for (const p of resident) await p.e.prepare(a, b, n);
      await turns(resident, "res", async (p) => { p.got = await p.e.chain(opts.chain); }, (p) => p.e.chain(1));
      for (const p of resident) {
        const { row, res } = p;
        if (!res.length) continue;
        row.residentMs = median(res) / opts.chain;
        row.residentRuns = res.length;
        row.residentAllMs = res.map((t) => +t.toFixed(3)); // every run's chain
        row.residentGflops = (opts.chain * flops) / (median(res) * 1e6);
        const sampled = [];
        for (const i of rows) for (const j of cols) sampled.push(p.got[i * n + j]);
        row.residentError = relError(sampled, chainExact);
      }
    } finally {
      for (const p of resident) await p.e.release();
    }
    for (const { e, row } of live) {
      log(`${e.name} n = ${n}: e2e ${fmt(row.e2eGflops)} GFLOPS, resident ${fmt(row.residentGflops)} GFLOPS, error ${sci(row.e2eError)} / ${sci(row.residentError)}${row.note ? ` (${row.note})` : ""}`);
    }
    save();
  }
}

/**
 * Runs `once(path)` for `paths` in turns, after a warm-up run of each (`warm`, default `once`):
 * up to `reps` rounds, each path once a round, round r from path r on (rotating), its times
 * (ms) pushed to `path[key]`; a path stops once its next run would push its total past half the
 * budget (`pastBudget`, as `timed` stops). A path that fails is dropped with its error in its
 * row's note.
 */
async function turns(paths, key, once, warm = once) {
  const failed = (p, err) => {
    p.row.note = `error: ${err.message}`;
    p[key].length = 0;
    p.failed = true;
    console.error(`${p.e.name} n = ${p.row.n}: ${err.stack ?? err}`);
  };
  for (const p of paths) await warm(p).catch((err) => failed(p, err)); // shader compilation, pools
  for (let r = 0; r < opts.reps; r++) {
    // Round r starts at path r: each path follows each other one equally often (the one after
    // TF.js, say, pays for the buffers Dawn frees of TF.js's last run).
    const order = paths.slice(r % paths.length).concat(paths.slice(0, r % paths.length));
    for (const p of order.filter((p) => !p.failed)) {
      const ms = p[key];
      if (pastBudget(ms, Math.min(opts.budget / 2, left()))) continue;
      const t0 = performance.now();
      try {
        await once(p);
        ms.push(performance.now() - t0);
      } catch (err) {
        failed(p, err);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// A·x: bytes of A read per product, 4 n^2.
async function benchMulVec() {
  const entries = [texlaProduct("mulVec"), texlaProduct("mulVec", { into: true }), texlaProduct("mulVec", { kernel: "blocked" }), texlaProduct("mulVec", { kernel: "compute" }), texlaProduct("mulVec", { dtype: "float16" }), tfProduct()].filter((e) => wanted(e.name));
  for (const n of opts.mvSizes) {
    log(`A·x n = ${n}: making data and the float64 reference`);
    const next = mulberry32(n + 1);
    const s = 1 / Math.sqrt(n);
    const a = randomMatrix(next, n * n, s);
    const x = randomMatrix(next, n, 1);
    const matvec = (v) => {
      const y = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        let sum = 0;
        const ai = i * n;
        for (let k = 0; k < n; k++) sum += a[ai + k] * v[k];
        y[i] = sum;
      }
      return y;
    };
    const exact = matvec(x);
    let chained = Float64Array.from(x);
    for (let c = 0; c < opts.chain; c++) chained = matvec(chained);
    // The float64 reference left the GPU idle for seconds: warm it up again before timing.
    await warmGpu(opts.warm);
    const bytes = 4 * n * n;
    for (const e of entries) {
      const name = e.name === "tfjs matMul" ? "tfjs matMul (n x 1)" : e.name;
      const row = { n, path: name, e2eMs: null, e2eGBs: null, e2eRuns: 0, residentMs: null, residentGBs: null, residentRuns: 0, e2eError: null, residentError: null, note: "" };
      results.mulvec.push(row);
      try {
        if (!e.available) throw new Error("not in this pkg/ or backend unavailable");
        if (left() <= 0) {
          row.note = "skipped: deadline";
          continue;
        }
        log(`${name} n = ${n}: end-to-end`);
        let got = await e.e2e(a, x, n, 1);
        const e2e = await timed(opts.reps, Math.min(opts.budget / 2, left()), async () => {
          got = await e.e2e(a, x, n, 1);
        });
        row.e2eMs = e2e.ms;
        row.e2eRuns = e2e.runs;
        row.e2eGBs = bytes / (e2e.ms * 1e6);
        row.e2eError = relError(got, exact);
        log(`${name} n = ${n}: resident (${opts.chain} chained)`);
        await e.prepare(a, x, n, 1);
        try {
          await e.chain(1, false);
          const res = await timed(opts.reps, Math.min(opts.budget / 2, left()), async () => {
            got = await e.chain(opts.chain, false);
          });
          row.residentMs = res.ms / opts.chain;
          row.residentRuns = res.runs;
          row.residentGBs = (opts.chain * bytes) / (res.ms * 1e6);
          row.residentError = relError(got, chained);
        } finally {
          e.release();
        }
      } catch (err) {
        row.note = `error: ${err.message}`;
        console.error(`${name} n = ${n}: ${err.stack ?? err}`);
      }
      log(`${name} n = ${n}: e2e ${fmt(row.e2eGBs)} GB/s, resident ${fmt(row.residentGBs)} GB/s, error ${sci(row.e2eError)} / ${sci(row.residentError)}`);
      save();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Solvers: ms per solve (A and b already on the GPU; the solve and the read-back of x), median of
// `reps` after one warm-up solve; error against the problem's known answer.
function lcp64(a, b, n, omega, iterations) {
  let x = new Float64Array(n);
  for (let k = 0; k < iterations; k++) {
    const w = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < n; j++) sum += a[i * n + j] * x[j];
      w[i] = sum;
    }
    x = Float64Array.from(x, (v, i) => Math.max(0, v + (omega * (w[i] + b[i])) / a[i * n + i]));
  }
  return x;
}
async function benchSolvers() {
  const runs = [];
  const cg = Math.min(opts.cgGrid, 64);
  runs.push({ solver: "cg", problem: `poisson2d ${cg}x${cg}`, make: () => texla.Gpgpu.problem("poisson2d", cg, 1), call: (A, B) => gpu.cg(A, B, { tol: 1e-5, maxIter: 2000 }) });
  runs.push({ solver: "cg fused", problem: `poisson2d ${cg}x${cg}`, make: () => texla.Gpgpu.problem("poisson2d", cg, 1), call: (A, B) => gpu.cg(A, B, { tol: 1e-5, maxIter: 2000, fused: true }) });
  runs.push({ solver: "jacobi", problem: `jacobi alpha 1.2`, make: () => texla.Gpgpu.problem("jacobi", opts.jacobiN, 1, 1.2), call: (A, B) => gpu.jacobi(A, B, { tol: 1e-5, maxIter: 2000, checkEvery: 10 }) });
  const lcpOpts = { omega: -0.8, iterations: opts.lcpIters, residual: false };
  runs.push({ solver: "lcpJacobi", problem: `lcp, ${opts.lcpIters} iterations`, lcp: true, make: () => texla.Gpgpu.problem("lcp", opts.lcpN, 1), call: (A, B) => gpu.lcpJacobi(A, B, lcpOpts) });
  runs.push({ solver: "lcpJacobi compute", problem: `lcp, ${opts.lcpIters} iterations`, lcp: true, make: () => texla.Gpgpu.problem("lcp", opts.lcpN, 1), call: (A, B) => gpu.lcpJacobi(A, B, { ...lcpOpts, kernel: "compute" }) });
  let lcpRef = null;
  for (const r of runs) {
    if (!wanted(`texla ${r.solver}`)) continue;
    const row = { solver: `texla ${r.solver}`, problem: r.problem, n: null, iterations: null, converged: null, ms: null, msPerIteration: null, runs: 0, error: null, errorVsFloat64: null, passes: null, note: "" };
    results.solvers.push(row);
    let A = null;
    let B = null;
    try {
      if (left() <= 0) throw new Error("deadline");
      const p = r.make();
      row.n = p.n;
      log(`${row.solver} (${r.problem}, n = ${p.n})`);
      A = gpu.upload(p.a, p.n, p.n);
      B = gpu.upload(p.b, p.n, 1);
      let out = null;
      const once = async () => {
        const s = await r.call(A, B);
        const x = await s.x.read();
        s.x.free();
        out = { s, x };
      };
      await once(); // warm-up
      const t = await timed(opts.reps, Math.min(opts.budget, left()), once);
      row.ms = t.ms;
      row.runs = t.runs;
      row.iterations = out.s.iterations;
      row.converged = out.s.converged;
      row.passes = out.s.passes;
      row.msPerIteration = t.ms / Math.max(1, out.s.iterations);
      const scale = p.x.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
      row.error = out.x.reduce((m, v, i) => Math.max(m, Math.abs(v - p.x[i])), 0) / scale;
      if (r.lcp) {
        lcpRef ??= lcp64(Float64Array.from(p.a), Float64Array.from(p.b), p.n, lcpOpts.omega, lcpOpts.iterations);
        const s64 = lcpRef.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
        row.errorVsFloat64 = out.x.reduce((m, v, i) => Math.max(m, Math.abs(v - lcpRef[i])), 0) / s64;
      }
    } catch (err) {
      row.note = `error: ${err.message}`;
      console.error(`${row.solver}: ${err.stack ?? err}`);
    } finally {
      A?.free();
      B?.free();
      gpu.releasePooled();
    }
    log(`${row.solver}: ${fmt(row.ms)} ms per solve, ${row.iterations} iterations, error ${sci(row.error)}`);
    save();
  }
}

// ---------------------------------------------------------------------------------------------
function fmt(v, digits = 1) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 10) return v.toFixed(digits);
  if (Math.abs(v) >= 0.1) return v.toFixed(digits + 1);
  return v.toPrecision(2);
}
const sci = (v) => (v === null || v === undefined ? "–" : v === Infinity ? "inf" : v.toExponential(1));
const ms = (v) => (v === null || v === undefined ? "–" : v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const runsOf = (a, b) => (a || b ? `${a}/${b}` : "–");

function markdown() {
  const e = results.env;
  const a = e.adapter;
  const lines = [];
  lines.push(`# texla and its peers on Dawn (dawn.node ${e.webgpu}), Node ${e.node}`);
  lines.push("");
  lines.push(`Adapter: ${[a.vendor, a.architecture, a.device, a.description].filter(Boolean).join(", ")}${a.fallback ? " (fallback)" : ""}; texla: ${e.texlaAdapter}; TF.js ${e.tfjs}${e.tfjsNote ? ` (${e.tfjsNote})` : ""}; jax-js ${e.jaxjs}${e.jaxjsNote ? ` (${e.jaxjsNote})` : ""}; ONNX Runtime ${e.onnxruntime} WebGPU EP${e.onnxruntimeNote ? ` (${e.onnxruntimeNote})` : ""}; ${e.cpus}; ${e.date}`);
  lines.push("");
  if (results.matmul.length) {
    lines.push(`## Matrix products C = A·B (n x n, GFLOPS = 2n³/time; resident: ${opts.chain} chained products, one read-back)`);
    lines.push("");
    lines.push("| n | path | e2e ms | e2e GFLOPS | resident ms/product | resident GFLOPS | runs e2e/res | rel. error e2e | rel. error resident | note |");
    lines.push("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for (const r of results.matmul) lines.push(`| ${r.n} | ${r.path} | ${ms(r.e2eMs)} | ${fmt(r.e2eGflops)} | ${ms(r.residentMs)} | ${fmt(r.residentGflops)} | ${runsOf(r.e2eRuns, r.residentRuns)} | ${sci(r.e2eError)} | ${sci(r.residentError)} | ${r.note} |`);
    lines.push("");
  }
  if (results.mulvec.length) {
    lines.push(`## A·x (n x n times n x 1, GB/s = 4n² bytes/time; resident: ${opts.chain} chained products x <- A·x, one read-back)`);
    lines.push("");
    lines.push("| n | path | e2e ms | e2e GB/s | resident ms/product | resident GB/s | runs e2e/res | rel. error e2e | rel. error resident | note |");
    lines.push("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for (const r of results.mulvec) lines.push(`| ${r.n} | ${r.path} | ${ms(r.e2eMs)} | ${fmt(r.e2eGBs)} | ${ms(r.residentMs)} | ${fmt(r.residentGBs)} | ${runsOf(r.e2eRuns, r.residentRuns)} | ${sci(r.e2eError)} | ${sci(r.residentError)} | ${r.note} |`);
    lines.push("");
  }
  if (results.solvers.length) {
    lines.push("## Solvers (A, b on the GPU; a solve and the read-back of x)");
    lines.push("");
    lines.push("| solver | problem | n | iterations | ms per solve | ms/iteration | passes | runs | error vs answer | error vs float64 | note |");
    lines.push("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for (const r of results.solvers) lines.push(`| ${r.solver} | ${r.problem} | ${r.n ?? "–"} | ${r.iterations ?? "–"}${r.converged === false && !r.solver.includes("lcp") ? " (not converged)" : ""} | ${ms(r.ms)} | ${ms(r.msPerIteration)} | ${r.passes ?? "–"} | ${r.runs || "–"} | ${sci(r.error)} | ${sci(r.errorVsFloat64)} | ${r.note} |`);
    lines.push("");
  }
  return lines.join("\n");
}

log(`adapter: ${JSON.stringify(adapterInfo)}; texla: ${env.texlaAdapter}; TF.js ${env.tfjs} ${tfNote ?? "webgpu"}`);
save();
try {
  if (opts.only.includes("matmul")) await benchMatmul();
  if (opts.only.includes("mulvec")) await benchMulVec();
  if (opts.only.includes("solvers")) await benchSolvers();
} finally {
  results.env.seconds = +elapsed().toFixed(1);
  save();
  console.log("\n" + markdown());
  console.log(`JSON: ${outJson}\nMarkdown: ${outMd}`);
}
process.exit(0);
