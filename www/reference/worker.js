// Runs the float64 reference off the main thread, so the page never freezes on large n.
// Message {id, a, b, m, k, n, timingOnly}: answers {id, c, s, ms}; with timingOnly, only {id, ms},
// the mean of as many runs as fill 20 ms (timer resolution is coarse in a worker).
// Message {id, kind: "nmf", f, u, v, m, n, k, options}: NMF's iterations from (u, v) in float64,
// answers {id, u, error, ms} (ms per iteration; error = ||F - U V^T||^2 after them).
// Message {id, kind: "parts", count, seed}: texla's generated NMF images, answers {id, images}.
import { matmul64, matmulOnly64 } from "./products.js";
import { nmf64, nmfError64 } from "./nmf.js";

self.onmessage = async (event) => {
  if (event.data.kind === "parts") {
    // texla's generated parts images (Gpgpu.partsImages needs no GPU): 1024 of them took
    // 200-500 ms here, too long to hold the page.
    const { id, count, seed } = event.data;
    const texla = await import("../../pkg/texla.js");
    await texla.default();
    const images = texla.Gpgpu.partsImages(count, seed);
    self.postMessage({ id, images }, [images.buffer]);
    return;
  }
  if (event.data.kind === "nmf") {
    const { id, f, u, v, m, n, k, options } = event.data;
    const t0 = performance.now();
    const exact = nmf64(f, u, v, m, n, k, options);
    const ms = (performance.now() - t0) / options.iterations;
    self.postMessage({ id, u: exact.u, error: nmfError64(f, exact.u, exact.v, m, n, k), ms }, [exact.u.buffer]);
    return;
  }
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
