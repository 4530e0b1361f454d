// A dedicated Worker that uses texla with no document: a product and a few frames of the wall,
// drawn into an OffscreenCanvas texla makes here. docs/api.md ("In a Worker") starts it, and so
// does tests/e2e/worker.test.mjs on each backend.
//
// Message in: { backend, a, b, m, k, n, frames }, a (m x k) and b (k x n) row-major.
// Message out: { backend, product, frame, canvas, document } (product: a b as a Float32Array;
// frame: the wall's frame after `frames` steps; canvas: the kind of canvas the wall drew into;
// document: typeof document here), or { error } with the message of what failed.
import init, { Gpgpu } from "../../pkg/texla.js";

const ready = init(); // loads texla_bg.wasm, next to texla.js, once

self.onmessage = async ({ data }) => {
  try {
    await ready;
    const { backend, a, b, m, k, n, frames = 3 } = data;
    const gpu = await Gpgpu.create(backend);
    const product = await gpu.matmul(gpu.upload(a, m, k), gpu.upload(b, k, n)).read();
    const wall = gpu.wall(1);
    const canvas = wall.canvas(); // an OffscreenCanvas: there is no document in a Worker
    canvas.width = 320;
    canvas.height = 180;
    for (let i = 0; i < frames; i++) {
      await wall.step();
      wall.draw();
    }
    self.postMessage({
      backend: gpu.backend,
      product,
      frame: wall.stats().frame,
      canvas: canvas.constructor.name,
      document: typeof document,
    });
  } catch (e) {
    self.postMessage({ error: e?.message ?? String(e) });
  }
};
