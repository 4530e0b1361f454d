// Resources the JavaScript way, in headless Chromium on both backends: every class that holds
// GPU memory has [Symbol.dispose] (so `using` frees it), and `gpu.scope(fn)` frees every matrix
// made inside it except what it returns, sync and async, nested, with `memory()` showing it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { onEachBackend, testOnEachBackend } from "./browser.mjs";

/** Runs in the page: disposals and scopes, and what memory() said at each step. */
async function resources({ backend }) {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const gpu = await texla.Gpgpu.create(backend);
  const mem = () => {
    const m = gpu.memory();
    return { matrices: m.liveMatrices, bytes: m.liveBytes, scopes: m.scopes, scoped: m.scopedMatrices };
  };
  const message = async (f) => {
    try {
      await f();
      return "no error";
    } catch (e) {
      return e.message;
    }
  };
  const out = { backend, start: mem() };
  // [Symbol.dispose] on every class that holds GPU memory; `using` where the browser has it.
  out.disposable = Object.fromEntries(
    ["Gpgpu", "GpuMatrix", "Wall", "PoissonSolver", "WaveSim", "LinearExpr"].map((c) => [c, typeof texla[c]?.prototype[Symbol.dispose] === "function"]),
  );
  {
    const m = gpu.fill(8, 8, 1);
    out.beforeDispose = mem();
    m[Symbol.dispose]();
    out.afterDispose = mem();
    out.disposedUse = await message(() => m.read());
  }
  // eslint-disable-next-line no-new-func
  const usingBlock = new Function("gpu", "{ using m = gpu.fill(4, 4, 2); } return gpu.memory().liveMatrices;");
  out.usingLeft = (() => {
    try {
      return usingBlock(gpu);
    } catch (e) {
      return `no using: ${e.message}`;
    }
  })();
  const wall = gpu.wall(1, 1);
  await wall.step();
  const withWall = gpu.memory().liveBytes + gpu.memory().pooledBytes;
  wall[Symbol.dispose]();
  gpu.releasePooled();
  out.wallFreed = gpu.memory().liveBytes + gpu.memory().pooledBytes < withWall;

  // A sync scope: the intermediates go, the result stays.
  const a = gpu.upload(new Float32Array([1, 2, 3, 4]), 2, 2);
  const b = gpu.upload(new Float32Array([5, 6, 7, 8]), 2, 2);
  const before = mem();
  let inside = null;
  const c = gpu.scope(() => {
    const t = gpu.add(a, b);
    const u = gpu.scale(t, 2);
    inside = mem();
    return gpu.matmul(u, a);
  });
  out.sync = { before, inside, after: mem(), c: Array.from(await c.read()) };
  // Nested, returning an object and an array: the inner scope's result belongs to the outer.
  let innerLeft = null;
  const kept = gpu.scope(() => {
    const pair = gpu.scope(() => [gpu.add(a, a), gpu.sub(a, a), gpu.scale(a, 3)].slice(0, 2));
    innerLeft = mem();
    const sum = gpu.add(pair[0], pair[1]);
    return { sum, note: "ok", deep: { twice: pair[0] } };
  });
  out.nested = { innerLeft, after: mem(), sum: Array.from(await kept.sum.read()), twice: Array.from(await kept.deep.twice.read()) };
  // Async: the scope ends when the promise settles.
  const d = await gpu.scope(async () => {
    const t = gpu.add(a, b);
    const x = await t.read();
    return gpu.upload(x.map((v) => v * 10), 2, 2);
  });
  out.async = { after: mem(), d: Array.from(await d.read()) };
  // A throw frees everything made and passes the error on.
  const thrown = await message(() =>
    gpu.scope(() => {
      gpu.add(a, b);
      throw new Error("boom");
    }),
  );
  const rejected = await message(() =>
    gpu.scope(async () => {
      gpu.add(a, b);
      await null;
      throw new Error("later");
    }),
  );
  out.errors = { thrown, rejected, after: mem() };
  return out;
}

testOnEachBackend(test, "dispose and scope free GPU memory, and memory() shows it", async (backend) => {
  const [r] = await onEachBackend(resources, {}, [backend]);
  for (const [c, has] of Object.entries(r.disposable)) assert.equal(has, true, `${c}[Symbol.dispose]`);
  assert.equal(r.afterDispose.matrices, r.beforeDispose.matrices - 1);
  assert.ok(r.afterDispose.bytes < r.beforeDispose.bytes, "the texture went");
  assert.match(r.disposedUse, /freed/);
  if (typeof r.usingLeft === "number") assert.equal(r.usingLeft, r.afterDispose.matrices, "`using` freed it");
  assert.equal(r.wallFreed, true, "the wall's textures went");
  // Sync scope: two intermediates made and freed; the product kept.
  const { before, inside, after } = r.sync;
  assert.deepEqual([inside.scopes, inside.scoped], [1, 2]);
  assert.deepEqual([after.scopes, after.scoped, after.matrices], [0, 0, before.matrices + 1]);
  // ((a + b) * 2) * a = [[12, 16], [20, 24]] * [[1, 2], [3, 4]]
  assert.deepEqual(r.sync.c, [60, 88, 92, 136]);
  // Nested: the inner scope freed its third matrix and passed two out; the outer kept its sum
  // and one of them.
  assert.deepEqual([r.nested.innerLeft.scopes, r.nested.innerLeft.scoped], [1, 2]);
  assert.equal(r.nested.after.matrices, after.matrices + 2);
  assert.deepEqual(r.nested.sum, [2, 4, 6, 8]);
  assert.deepEqual(r.nested.twice, [2, 4, 6, 8]);
  assert.equal(r.async.after.matrices, r.nested.after.matrices + 1, "the async scope kept d alone");
  assert.deepEqual(r.async.d, [60, 80, 100, 120]);
  assert.equal(r.errors.thrown, "boom");
  assert.equal(r.errors.rejected, "later");
  assert.deepEqual([r.errors.after.matrices, r.errors.after.scopes], [r.async.after.matrices, 0]);
});
