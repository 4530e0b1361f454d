// Talks to worker.js: the float64 reference runs there, off the main thread.

let worker = null;
let nextId = 0;
const pending = new Map();

function send(message, transfer = []) {
  if (!worker) {
    worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    worker.onmessage = (e) => {
      pending.get(e.data.id)(e.data);
      pending.delete(e.data.id);
    };
  }
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker.postMessage({ id, ...message }, transfer);
  });
}

/** C = A*B in float64 with the error magnitudes S: resolves to {c, s, ms}. */
export function reference(a, b, m, k, n) {
  return send({ a, b, m, k, n });
}

/** Milliseconds JavaScript float64 takes for A*B (nothing else computed). */
export async function referenceTiming(a, b, m, k, n) {
  return (await send({ a, b, m, k, n, timingOnly: true })).ms;
}

/** NMF's `options.iterations` multiplicative updates of F (m x n) from U (m x k), V (n x k) in
 * float64 (reference/nmf.js): resolves to {u, error, ms}, ms per iteration. */
export function nmfReference(f, u, v, m, n, k, options) {
  return send({ kind: "nmf", f, u, v, m, n, k, options });
}

/** texla's `Gpgpu.partsImages(count, seed)` (NMF's generated images), made in the worker. */
export async function partsImages(count, seed) {
  return (await send({ kind: "parts", count, seed })).images;
}
