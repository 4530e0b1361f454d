// A GPU lost from outside texla, as a GPU reset or the page itself would lose it, in headless
// Chromium on both backends: WebGL2's context lost and restored by the browser for a page that
// asked to have it back (preventDefault on webglcontextlost), and a WebGPU device destroyed,
// with texla's own Gpgpu used and restored at once. Option values of the wrong kind, which
// must be refused with a message that names the option, not read as false or as a tolerance.
// And a large product read back without holding the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { onEachBackend, testOnEachBackend } from "./browser.mjs";

/** Run in each page before its scripts: records the contexts and devices the page opens. */
const RECORDER = `
window.lossContexts = [];
window.lossDevices = [];
{
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
    const c = getContext.call(this, type, ...rest);
    if (type === "webgl2" && c && !window.lossContexts.includes(c)) window.lossContexts.push(c);
    return c;
  };
  if (typeof GPUAdapter !== "undefined") {
    const requestDevice = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (...args) {
      const d = await requestDevice.apply(this, args);
      window.lossDevices.push(d);
      return d;
    };
  }
}`;

/** Runs in the page: loses texla's context or device from outside; what texla said of it. */
async function loseFromOutside({ backend }) {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const message = async (f) => {
    try {
      await f();
      return "no error";
    } catch (e) {
      return e instanceof Error ? e.message : `a non-Error: ${e}`;
    }
  };
  // Uploads and products on the GPU: on a software adapter (here) they would stay on the
  // CPU, where a lost GPU does not reach them.
  const gpu = await texla.Gpgpu.create(backend, { cpuProducts: false });
  const a = gpu.upload(new Float32Array([1, 2, 3, 4]), 2, 2);
  const b = gpu.upload(new Float32Array([5, 6, 7, 8]), 2, 2);
  const out = { backend };
  if (backend === "webgl2") {
    const ctx = window.lossContexts.at(-1);
    const canvas = ctx.canvas;
    canvas.addEventListener("webglcontextlost", (e) => e.preventDefault());
    const lost = new Promise((r) => canvas.addEventListener("webglcontextlost", r, { once: true }));
    const restored = new Promise((r) => canvas.addEventListener("webglcontextrestored", r, { once: true }));
    const ext = ctx.getExtension("WEBGL_lose_context");
    ext.loseContext();
    await lost;
    await sleep(100); // (restoreContext() in the lost event's own task is ignored)
    ext.restoreContext();
    out.restoredEvent = await Promise.race([restored.then(() => true), sleep(5000).then(() => false)]);
    out.contextLostNow = ctx.isContextLost();
  } else {
    window.lossDevices.at(-1).destroy();
    // At once, before device.lost has settled: an operation, then restore() itself.
    out.atOnce = await message(async () => gpu.matmul(a, b).read());
  }
  out.lost = gpu.lost() ?? null;
  // (On WebGL2 a call now would bring the restored context back by itself: see below.)
  if (backend === "webgpu") out.product = await message(async () => gpu.matmul(a, b).read());
  const r = await gpu.restore();
  out.restore = { restored: r.restored, lost: r.lost };
  out.lostAfter = gpu.lost() ?? null;
  out.a = Array.from(await a.read());
  out.ab = Array.from(await gpu.matmul(a, b).read());
  return out;
}

/** Runs in the page: a WebGPU device destroyed and restore() called in the same turn. */
async function restoreAtOnce({ backend }) {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const gpu = await texla.Gpgpu.create(backend);
  const a = gpu.upload(new Float32Array([1, 2, 3, 4]), 2, 2);
  window.lossDevices.at(-1).destroy();
  const lostBefore = gpu.lost() ?? null;
  const r = await gpu.restore();
  return { lostBefore, restore: { restored: r.restored, lost: r.lost }, square: Array.from(await gpu.square(a).read()) };
}

testOnEachBackend(test, "a context or device lost from outside texla is found, named and restored", async (backend) => {
  const [r] = await onEachBackend(loseFromOutside, {}, [backend], RECORDER);
  const what = backend === "webgpu" ? "WebGPU device" : "WebGL2 context";
  const went = new RegExp(`^the GPU went away \\(the ${what} was lost`);
  if (backend === "webgl2") {
    // The browser gave the context back, but every texture and program of it is gone.
    assert.equal(r.restoredEvent, true, "webglcontextrestored fired");
    assert.equal(r.contextLostNow, false);
  } else {
    assert.match(r.atOnce, went, "an operation at once says the device went away");
  }
  assert.match(r.lost ?? "", new RegExp(`^the ${what} was lost`), "gpu.lost() names the loss");
  if (backend === "webgpu") assert.match(r.product, /a new device is being opened: call again/);
  // A and B come back; on WebGPU the product made at once was never read, and is lost.
  assert.deepEqual(r.restore, { restored: 2, lost: backend === "webgpu" ? 1 : 0 });
  assert.equal(r.lostAfter, null);
  assert.deepEqual(r.a, [1, 2, 3, 4]);
  assert.deepEqual(r.ab, [19, 22, 43, 50]);
});

// Not per backend: WebGPU only by nature (device.lost settles later; a WebGL2 loss at once).
test("restore() at once after a WebGPU device is destroyed from outside finds the loss itself", async () => {
  const [r] = await onEachBackend(restoreAtOnce, {}, ["webgpu"], RECORDER);
  assert.equal(r.lostBefore, null, "device.lost has not settled yet");
  assert.deepEqual(r.restore, { restored: 1, lost: 0 });
  assert.deepEqual(r.square, [7, 10, 15, 22]);
});

/** Runs in the page: options of the wrong kind; each call's error message, or what it gave. */
async function wrongKinds({ backend }) {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const gpu = await texla.Gpgpu.create(backend);
  const m22 = () => gpu.upload(new Float32Array([4, 1, 1, 3]), 2, 2);
  const v2 = () => gpu.upload(new Float32Array([1, 2]), 2, 1);
  const f23 = () => gpu.upload(new Float32Array([1, 2, 3, 4, 5, 6]), 2, 3);
  const calls = [
    ["transposeA", () => gpu.matmul(m22(), m22(), { transposeA: "yes" })],
    ["transposeB", () => gpu.matmul(m22(), m22(), { transposeB: 1 })],
    ["fused", () => gpu.cg(m22(), v2(), { fused: "yes" })],
    ["normalize", () => gpu.nmf(f23(), 1, { iterations: 2, normalize: 1 })],
    ["onProgress", () => gpu.cg(m22(), v2(), { onProgress: "log" })],
    ["onProgress", () => gpu.lcpJacobi(m22(), v2(), { onProgress: {} })],
    ["signal", () => gpu.jacobi(m22(), v2(), { signal: true })],
    ["signal", () => gpu.nmf(f23(), 1, { iterations: 2, signal: {} })],
    ["tol", () => gpu.cg(m22(), v2(), { tol: -1e-6 })],
    ["tol", () => gpu.jacobi(m22(), v2(), { tol: -1 })],
    ["tol", () => gpu.refine(gpu.uploadFloat64(new Float64Array([4, 1, 1, 3]), 2, 2), gpu.uploadFloat64(new Float64Array([1, 2]), 2, 1), { tol: -1 })],
    ["innerTol", () => gpu.refine(gpu.uploadFloat64(new Float64Array([4, 1, 1, 3]), 2, 2), gpu.uploadFloat64(new Float64Array([1, 2]), 2, 1), { innerTol: -0.5 })],
  ];
  const out = [];
  for (const [option, call] of calls) {
    try {
      await call();
      out.push([option, "accepted"]);
    } catch (e) {
      out.push([option, e instanceof Error ? e.message : String(e)]);
    }
  }
  // The right kinds still work: tol 0 runs every iteration, a real signal and onProgress.
  const heard = [];
  const r = await gpu.cg(m22(), v2(), { tol: 0, maxIter: 2, fused: false, onProgress: (i) => heard.push(i), signal: new AbortController().signal });
  return { out, iterations: r.iterations, heard: heard.length };
}

testOnEachBackend(test, "options of the wrong kind are refused with a message that names them", async (backend) => {
  const [r] = await onEachBackend(wrongKinds, {}, [backend]);
  for (const [option, said] of r.out) {
    assert.match(said, new RegExp(`option ${option} must be`), `${option}: ${said}`);
  }
  assert.equal(r.iterations, 2);
  assert.ok(r.heard >= 1);
});

/** Runs in the page: how late a 20 ms timer runs while a 1024 x 1024 product is read back. */
async function largeRead({ backend }) {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  // The product on the GPU: on a software adapter (here) it would run on the CPU, on the
  // page's own thread (docs/api.md).
  const gpu = await texla.Gpgpu.create(backend, { cpuProducts: false });
  const n = 1024;
  const m = gpu.upload(new Float32Array(n * n).fill(1 / n), n, n);
  await gpu.square(gpu.identity(4, 4)).read(); // the kernels built before the clock starts
  let late = 0;
  let ticking = true;
  const ticks = (async () => {
    while (ticking) {
      const t = performance.now();
      await new Promise((r) => setTimeout(r, 20));
      late = Math.max(late, performance.now() - t - 20);
    }
  })();
  await new Promise((r) => setTimeout(r, 60));
  const t0 = performance.now();
  const c = await gpu.matmul(m, m).read();
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 60));
  ticking = false;
  await ticks;
  return { backend, ms, late, first: c[0], last: c[n * n - 1] };
}

testOnEachBackend(test, "a large product is read back without holding the page", async (backend) => {
  const [r] = await onEachBackend(largeRead, {}, [backend]);
  // Every element is 1024 * (1/1024)^2 = 1/1024, exact in float32.
  assert.equal(r.first, 1 / 1024);
  assert.equal(r.last, 1 / 1024);
  // WebGL2 read it with readPixels alone before: its 20 ms timer ran the whole product late
  // (1.8-2.1 s here), now a turn of the event loop at a time.
  assert.ok(r.late < 500, `the page was held ${r.late.toFixed(0)} ms of the ${r.ms.toFixed(0)} ms read`);
});

/** Runs in the page: a page that never calls restore() loses its GPU from outside twice;
 * what its calls gave. */
async function neverRestores({ backend }) {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const message = async (f) => {
    try {
      return await f();
    } catch (e) {
      return e instanceof Error ? e.message : `a non-Error: ${e}`;
    }
  };
  const loseFromOutside = async () => {
    if (backend === "webgl2") {
      const ctx = window.lossContexts.at(-1);
      const lost = new Promise((r) => ctx.canvas.addEventListener("webglcontextlost", r, { once: true }));
      const restored = new Promise((r) => ctx.canvas.addEventListener("webglcontextrestored", r, { once: true }));
      const ext = ctx.getExtension("WEBGL_lose_context");
      ext.loseContext();
      await lost;
      await sleep(100);
      ext.restoreContext(); // as the browser does for a page that asked (texla asks)
      await restored;
    } else {
      window.lossDevices.at(-1).destroy();
      for (let i = 0; i < 250 && !gpu.lost(); i++) await sleep(20);
    }
  };
  // Uploads and products on the GPU: on a software adapter (here) they would stay on the
  // CPU, where a lost GPU does not reach them.
  const gpu = await texla.Gpgpu.create(backend, { cpuProducts: false });
  const a = gpu.upload(new Float32Array([1, 2, 3, 4]), 2, 2);
  const b = gpu.upload([5, 6, 7, 8], 2, 2);
  const squared = gpu.square(a);
  const out = { backend, squaredBefore: Array.from(await squared.read()) };
  const never = gpu.matmul(a, b); // computed, never read: no copy
  const data = new Float32Array([9, 9, 9, 9]);
  const changed = gpu.upload(data, 2, 2);
  data[0] = 0; // the page changed the array that was the copy
  await loseFromOutside();
  out.lost = gpu.lost() ?? null;
  out.first = await message(async () => Array.from(await gpu.matmul(a, b).read()));
  out.a = Array.from(await a.read());
  out.ab = Array.from(await gpu.matmul(a, b).read());
  out.squared = Array.from(await squared.read());
  out.never = await message(() => never.read());
  out.changed = await message(() => changed.read());
  out.lostAfter = gpu.lost() ?? null;
  await loseFromOutside();
  out.again = await message(async () => Array.from(await gpu.add(a, b).read()));
  out.againRead = Array.from(await b.read());
  out.live = gpu.memory().liveMatrices;
  return out;
}

testOnEachBackend(test, "a page that never calls restore() gets its GPU and its uploaded data back", async (backend) => {
  const [r] = await onEachBackend(neverRestores, {}, [backend], RECORDER);
  const what = backend === "webgpu" ? "WebGPU device" : "WebGL2 context";
  assert.deepEqual(r.squaredBefore, [7, 10, 15, 22]);
  assert.match(r.lost ?? "", new RegExp(`^the ${what} was lost`));
  if (backend === "webgl2") {
    // The browser restored the context: the next call runs on a new one at once.
    assert.deepEqual(r.first, [19, 22, 43, 50]);
    assert.deepEqual(r.again, [6, 8, 10, 12]);
  } else {
    // The call that finds the loss rejects once, saying a new device is being opened; a read
    // waits for it.
    assert.match(r.first, /^the GPU went away \(the WebGPU device was lost.*a new device is being opened: call again in a moment/);
    assert.match(r.again, /a new device is being opened/);
  }
  assert.deepEqual(r.a, [1, 2, 3, 4], "uploaded: back from the page's array");
  assert.deepEqual(r.ab, [19, 22, 43, 50], "kernels run again");
  assert.deepEqual(r.squared, [7, 10, 15, 22], "read back: back from what read() gave");
  assert.match(r.never, /lost with the GPU context/);
  assert.match(r.changed, /array it was uploaded from or read into has changed since/);
  assert.equal(r.lostAfter, null);
  assert.deepEqual(r.againRead, [5, 6, 7, 8], "a second loss comes back the same way");
});
