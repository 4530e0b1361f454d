// End-to-end: texla in a dedicated Worker, on each backend (issue 36). In a Worker there is no
// document: WebGL2 opens on an OffscreenCanvas texla makes there, and the wall draws into one.
// 1. www/worker/compute.js (the Worker docs/api.md starts) computes a product, checked here
//    against float64, and steps and draws two frames of the wall.
// 2. www/worker.html runs the page's wall in a Worker that draws into the page's canvas
//    (transferControlToOffscreen): it draws something, takes a click forwarded by a message,
//    and the page's own frames keep coming meanwhile.
// 3. A canvas given to Gpgpu.create (option canvas) stays the wall's through a lost GPU and
//    restore(): on WebGL2 the same context, once the browser gives it back.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPage, sharedBrowser, testOnEachBackend } from "./browser.mjs";

const shared = sharedBrowser(before, after);

/** `count` numbers in [-1, 1) from a small LCG, so that every run multiplies the same matrices. */
function values(count, seed) {
  let s = seed;
  return Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

testOnEachBackend(test, "the API in a Worker: a product against float64 and wall frames", async (backend) => {
  const [m, k, n] = [23, 37, 19];
  const a = values(m * k, 1);
  const b = values(k * n, 2);
  const page = await shared.browser.newPage();
  try {
    await page.goto(`${shared.server.url}www/style.css`);
    const out = await page.evaluate((message) => new Promise((resolve) => {
      const worker = new Worker("/www/worker/compute.js", { type: "module" });
      worker.onmessage = ({ data }) => resolve({ ...data, product: data.product && Array.from(data.product) });
      worker.onerror = (e) => resolve({ error: `the Worker failed to start: ${e.message}` });
      worker.postMessage(message);
    }), { backend, a, b, m, k, n, frames: 2 });
    assert.equal(out.error, undefined, out.error);
    assert.equal(out.backend, backend);
    assert.equal(out.document, "undefined", "the Worker has no document");
    assert.equal(out.canvas, "OffscreenCanvas");
    assert.equal(out.frame, 2);
    // Each element against float64, within the float32 bound of a k-term dot product:
    // |error| <= 2 k 2^-24 sum |a_il b_lj|.
    assert.equal(out.product.length, m * n);
    let worst = 0;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let exact = 0, scale = 0;
        for (let l = 0; l < k; l++) {
          exact += a[i * k + l] * b[l * n + j];
          scale += Math.abs(a[i * k + l] * b[l * n + j]);
        }
        const ratio = Math.abs(out.product[i * n + j] - exact) / (2 * k * 2 ** -24 * scale);
        worst = Math.max(worst, ratio);
      }
    }
    assert.ok(worst <= 1, `an element is ${worst.toFixed(2)} times the float32 bound off float64`);
  } finally {
    await page.close();
  }
});

testOnEachBackend(test, "the page's wall in a Worker draws into the transferred canvas and takes input", async (backend) => {
  const context = await shared.browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const { page, problems } = await openPage(context, shared.server, `www/worker.html?backend=${backend}`);
    await page.waitForFunction(() => !document.getElementById("wall-run").disabled, null, { timeout: 60_000 });
    assert.match(await page.textContent("#wall-status"), backend === "webgpu" ? /on WebGPU/ : /on WebGL2/);
    const stats = () => page.$eval("#wall-stats", (e) => ({ frame: Number(e.dataset.frame), throws: Number(e.dataset.throws) }));
    // Two frames, then a click forwarded to the Worker throws a ball.
    await page.click("#wall-step");
    await page.click("#wall-step");
    await page.waitForFunction(() => Number(document.getElementById("wall-stats").dataset.frame) >= 2, null, { timeout: 60_000 });
    const canvas = page.locator("#wall-canvas");
    await canvas.click();
    await page.waitForFunction(() => Number(document.getElementById("wall-stats").dataset.throws) === 1, null, { timeout: 10_000 });
    assert.deepEqual(await stats(), { frame: 2, throws: 1 });
    // Running: the page's own frames keep coming while the Worker steps the wall.
    const pageFrames = () => page.$eval("#page-frames", (e) => Number(e.dataset.frames ?? 0));
    const before = await pageFrames();
    await page.click("#wall-run");
    await page.waitForFunction(() => Number(document.getElementById("wall-stats").dataset.frame) >= 4, null, { timeout: 60_000 });
    await page.click("#wall-run");
    assert.ok((await pageFrames()) > before, "the page drew frames of its own while the wall ran");
    // What the page shows: the wall, not a blank canvas (a drawing shows a few frames later).
    let colours = 0;
    for (const end = Date.now() + 15_000; colours < 20 && Date.now() < end; await page.waitForTimeout(200)) {
      const png = (await canvas.screenshot()).toString("base64");
      colours = await page.evaluate(async (png) => {
        const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
        const c = new OffscreenCanvas(bitmap.width, bitmap.height).getContext("2d");
        c.drawImage(bitmap, 0, 0);
        const px = new Uint32Array(c.getImageData(0, 0, bitmap.width, bitmap.height).data.buffer);
        return new Set(px).size;
      }, png);
    }
    assert.ok(colours >= 20, `the canvas shows ${colours} colours: the wall was not drawn`);
    assert.equal(await page.$eval("#wall-error", (e) => e.hidden), true, await page.textContent("#wall-error"));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

testOnEachBackend(test, "a canvas given to Gpgpu.create stays the wall's through a lost GPU and restore()", async (backend) => {
  const page = await shared.browser.newPage();
  try {
    await page.goto(`${shared.server.url}www/style.css`);
    const out = await page.evaluate(async (backend) => {
      const { default: init, Gpgpu } = await import("/pkg/texla.js");
      await init();
      const refused = await Gpgpu.create(backend, { canvas: {} }).then(() => "opened", (e) => e.message);
      const canvas = new OffscreenCanvas(64, 36);
      // A browser gives a lost WebGL2 context back only to a page that asks for it, when the
      // loss is reported (an event after loseContext()).
      const event = (name) => new Promise((resolve, reject) => {
        canvas.addEventListener(name, (e) => { e.preventDefault(); resolve(); }, { once: true });
        setTimeout(() => reject(new Error(`no ${name} event in 10 s`)), 10_000);
      });
      const gpu = await Gpgpu.create(backend, { canvas });
      // Taken before the loss: a lost context gives no extension.
      const extension = backend === "webgl2" ? canvas.getContext("webgl2").getExtension("WEBGL_lose_context") : null;
      const wall = gpu.wall(1);
      const same = wall.canvas() === canvas;
      wall.draw();
      const lost = backend === "webgl2" && event("webglcontextlost");
      gpu.loseContext();
      if (backend === "webgl2") {
        await lost;
        await new Promise((r) => setTimeout(r, 0)); // once the event's dispatch has ended
        const restored = event("webglcontextrestored");
        extension.restoreContext();
        await restored;
      }
      const { restored } = await gpu.restore();
      wall.draw();
      const square = await gpu.square(gpu.upload([1, 2, 3, 4], 2, 2)).read();
      return { refused, same, restored, lost: gpu.lost() ?? null, after: wall.canvas() === canvas, square: Array.from(square) };
    }, backend);
    assert.deepEqual(out, { refused: "option canvas must be an HTMLCanvasElement or an OffscreenCanvas, got an object that is no canvas", same: true, restored: 0, lost: null, after: true, square: [7, 10, 15, 22] });
  } finally {
    await page.close();
  }
});
