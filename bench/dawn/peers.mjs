// The peers bench.mjs measures beside texla and TF.js on Dawn in Node: jax-js (npm `@jax-js/jax`)
// on the same dawn.node as texla, and ONNX Runtime's WebGPU execution provider (npm
// `onnxruntime-node`, which carries its own Dawn) running a one-node MatMul model. Each entry has
// bench.mjs's shape: e2e(a, b, n, bCols) -> Float32Array of A·B; prepare(a, b, n, bCols);
// chain(count) -> Float32Array of A·B^count (X <- X·B), one read-back; release().
import { identityModel, matmulChainModel } from "./onnx-matmul.mjs";

/**
 * jax-js on WebGPU. It finds WebGPU through `navigator.gpu`, which dawn.mjs has set to dawn.node's
 * (its README lists Node WebGPU as unsupported; it runs). Arrays are reference-counted: every call
 * takes ownership of its arguments, `.ref` keeps one; `data()` reads back and frees. Resident: A
 * and B as jax-js arrays on the "webgpu" device, realized (`blockUntilReady`) before the chain.
 */
export async function jaxPeer() {
  let jax = null;
  let note = null;
  try {
    jax = await import("@jax-js/jax");
    const devices = await jax.init();
    if (!devices.includes("webgpu")) throw new Error(`no webgpu device (${devices.join(", ")})`);
    jax.defaultDevice("webgpu");
  } catch (e) {
    note = `jax-js WebGPU unavailable: ${e.message}`;
    console.error(note);
  }
  const np = jax?.numpy;
  const matrix = (data, rows, cols) => np.array(data).reshape([rows, cols]);
  let ja = null;
  let jb = null;
  return {
    note,
    entry: () => ({
      name: "jax-js matmul",
      available: !note,
      async e2e(a, b, n, bCols = n) {
        return np.matmul(matrix(a, n, n), matrix(b, n, bCols)).data();
      },
      async prepare(a, b, n, bCols = n) {
        ja = await matrix(a, n, n).blockUntilReady();
        jb = await matrix(b, n, bCols).blockUntilReady();
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
    }),
  };
}

/**
 * ONNX Runtime's WebGPU EP through onnxruntime-node: sessions of a one-node MatMul model
 * (onnx-matmul.mjs) for each n. End-to-end: one run on CPU tensors A and B, its output read back
 * to the CPU (ORT uploads, multiplies and downloads inside `run`). Resident: the Node binding
 * keeps GPU tensors (`preferredOutputLocation: "gpu-buffer"`, which a later run takes as input):
 * A and B go up through an Identity model whose output stays on the GPU, then count - 1 runs of
 * the MatMul model with GPU output and a last one with CPU output (the one read-back).
 */
export async function ortPeer() {
  let ort = null;
  let note = null;
  try {
    ort = (await import("onnxruntime-node")).default;
    // Opening a session proves the EP runs here (its Dawn, its adapter).
    const probe = await ort.InferenceSession.create(matmulChainModel(4), { executionProviders: ["webgpu"] });
    await probe.release();
  } catch (e) {
    note = `ONNX Runtime WebGPU EP unavailable: ${e.message}`;
    console.error(note);
  }
  const ep = { executionProviders: ["webgpu"] };
  const onGpu = { ...ep, preferredOutputLocation: "gpu-buffer" };
  let sessions = null; // for one shape: { key, matmul, matmulGpu, upA, upB }
  const open = async (n, cols) => {
    const key = `${n}x${cols}`;
    if (sessions?.key === key) return sessions;
    await close();
    const create = (model, o) => ort.InferenceSession.create(model, o);
    sessions = {
      key,
      matmul: await create(matmulChainModel(n, 1, cols), ep),
      matmulGpu: await create(matmulChainModel(n, 1, cols), onGpu),
      upA: await create(identityModel(n, n), onGpu),
      upB: await create(identityModel(n, cols), onGpu),
    };
    return sessions;
  };
  const close = async () => {
    const s = sessions;
    sessions = null;
    if (s) for (const k of ["matmul", "matmulGpu", "upA", "upB"]) await s[k].release();
  };
  const tensor = (data, rows, cols) => new ort.Tensor("float32", data, [rows, cols]);
  let ga = null;
  let gb = null;
  return {
    note,
    version: ort?.env?.versions?.node ?? null,
    entry: () => ({
      name: "onnxruntime webgpu MatMul",
      available: !note,
      async e2e(a, b, n, bCols = n) {
        const s = await open(n, bCols);
        return (await s.matmul.run({ X: tensor(a, n, n), B: tensor(b, n, bCols) })).Y.data;
      },
      async prepare(a, b, n, bCols = n) {
        const s = await open(n, bCols);
        ga = (await s.upA.run({ X: tensor(a, n, n) })).Y;
        gb = (await s.upB.run({ X: tensor(b, n, bCols) })).Y;
      },
      async chain(count) {
        let x = ga;
        for (let i = 0; i < count - 1; i++) {
          const y = (await sessions.matmulGpu.run({ X: x, B: gb })).Y;
          if (x !== ga) x.dispose();
          x = y;
        }
        const out = (await sessions.matmul.run({ X: x, B: gb })).Y.data;
        if (x !== ga) x.dispose();
        return out;
      },
      async release() {
        ga?.dispose();
        gb?.dispose();
        ga = gb = null;
        await close();
      },
    }),
  };
}
