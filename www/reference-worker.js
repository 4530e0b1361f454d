// Runs the float64 reference off the main thread, so the page never freezes on large n.
// Message {id, a, b, m, k, n, timingOnly}: answers {id, c, s, ms}; with timingOnly, only {id, ms}.
import { matmul64, matmulOnly64 } from "./reference.js";

self.onmessage = (event) => {
  const { id, a, b, m, k, n, timingOnly } = event.data;
  const t0 = performance.now();
  if (timingOnly) {
    matmulOnly64(a, b, m, k, n);
    self.postMessage({ id, ms: performance.now() - t0 });
    return;
  }
  const { c, s } = matmul64(a, b, m, k, n);
  const ms = performance.now() - t0;
  self.postMessage({ id, c, s, ms }, [c.buffer, s.buffer]);
};
