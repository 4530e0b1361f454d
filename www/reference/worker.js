// Runs the float64 reference off the main thread, so the page never freezes on large n.
// Message {id, a, b, m, k, n, timingOnly}: answers {id, c, s, ms}; with timingOnly, only {id, ms},
// the mean of as many runs as fill 20 ms (timer resolution is coarse in a worker).
import { matmul64, matmulOnly64 } from "./products.js";

self.onmessage = (event) => {
  const { id, a, b, m, k, n, timingOnly } = event.data;
  const t0 = performance.now();
  if (timingOnly) {
    let runs = 0;
    do {
      matmulOnly64(a, b, m, k, n);
      runs++;
    } while (performance.now() - t0 < 20);
    self.postMessage({ id, ms: (performance.now() - t0) / runs });
    return;
  }
  const { c, s } = matmul64(a, b, m, k, n);
  const ms = performance.now() - t0;
  self.postMessage({ id, c, s, ms }, [c.buffer, s.buffer]);
};
