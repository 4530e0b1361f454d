// End-to-end: the page's float-float parts, on each backend: CG in float-float beside float32
// and float64 in the solver section, and the accuracy section's lesson "Where float32 stops and
// what float-float buys". Every test fails on console errors, CSP violations or off-origin
// requests, as page.test.mjs's do.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPage, sharedBrowser, testOnEachBackend } from "./browser.mjs";

const shared = sharedBrowser(before, after);

/** Opens the page on `backend` (see browser.mjs's openPage) and waits for its first result. */
async function open(backend) {
  const opened = await openPage(shared.browser, shared.server, `?backend=${backend}`);
  await opened.page.waitForSelector("#square-result-summary", { timeout: 60_000 });
  return opened;
}

testOnEachBackend(test, "CG on a dense matrix runs in float32, float-float and float64 side by side", async (backend) => {
  const { page, problems } = await open(backend);
  await page.selectOption("#solver-kind", "cg");
  await page.selectOption("#solver-problem", "poisson1d");
  await page.fill("#solver-n", "200");
  await page.fill("#solver-tol", "1e-12");
  await page.fill("#solver-iter", "1000");
  await page.click("#solver-form button[type=submit]");
  await page.waitForSelector("#solver-summary", { timeout: 60_000 });
  const summary = page.locator("#solver-summary");
  const ffTrue = Number(await summary.getAttribute("data-ff-true-residual"));
  const f32True = Number(await page.textContent("#solver-true-residual"));
  assert.ok(ffTrue < 1e-10, `float-float true residual ${ffTrue}`);
  assert.ok(f32True > 10 * ffTrue, `float32 ${f32True} against float-float ${ffTrue}`);
  // The known answer is the exact problem's, and b is rounded to float32: float64's own x is
  // 1.8e-8 from it, and float-float's as close.
  const ffError = Number(await summary.getAttribute("data-ff-error"));
  const jsError = Number(await summary.getAttribute("data-js-error"));
  assert.ok(ffError < 1e-7 && ffError <= 1.01 * jsError, `float-float error ${ffError}, float64 ${jsError}`);
  assert.ok(Number(await summary.getAttribute("data-ff-iterations")) > 0);
  assert.match(await page.textContent("#solver-summary tr:first-child"), /GPU float32.*GPU float-float.*JavaScript float64/);
  assert.match(await page.textContent("#solver-ff-note"), /float-float x reaches \d\.\d\de-\d+ in \d+/);
  // Three curves: the float-float one's colour (#edae49) is on the canvas.
  const series = await page.getAttribute("#solver-plot", "data-series");
  assert.deepEqual(series.split("; ").map((s) => s.split(" ")[0] + " " + s.split(" ")[1]), ["GPU float32", "GPU float-float", "JavaScript float64"]);
  const orange = await page.$eval("#solver-plot", (c) => {
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let count = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 0xed) < 8 && Math.abs(d[i + 1] - 0xae) < 8 && Math.abs(d[i + 2] - 0x49) < 8) count++;
    return count;
  });
  assert.ok(orange > 50, `${orange} pixels of the float-float curve`);

  // The matrix-free Poisson grid (past 45 x 45) stays float32 only.
  await page.selectOption("#solver-problem", "poisson2d");
  await page.fill("#solver-n", "50");
  await page.fill("#solver-tol", "1e-4");
  await page.click("#solver-form button[type=submit]");
  await page.waitForFunction(() => document.getElementById("solver-summary")?.textContent.includes("stencil"), null, { timeout: 60_000 });
  assert.equal(await page.getAttribute("#solver-summary", "data-ff-true-residual"), null);
  assert.equal((await page.getAttribute("#solver-plot", "data-series")).split("; ").length, 2);
  assert.deepEqual(problems, []);
  await page.close();
});

testOnEachBackend(test, "the float-float lesson shows where float32 stops", async (backend) => {
  const { page, problems } = await open(backend);
  await page.click("#ff-form button");
  await page.waitForSelector("#ff-result[data-done]", { timeout: 120_000 });
  const summary = page.locator("#ff-summary");
  const f32Product = Number(await summary.getAttribute("data-f32-product-error"));
  const ffProduct = Number(await summary.getAttribute("data-ff-product-error"));
  assert.ok(ffProduct < 1e-12, `float-float product ${ffProduct}`);
  assert.ok(f32Product > 1e-8, `float32 product ${f32Product}`);
  // (1 + 2^-30) - 1: float32 loses it, float-float keeps it exactly.
  const row = page.locator("#ff-cancel tr[data-k='30']");
  assert.equal(Number(await row.getAttribute("data-f32")), 0);
  assert.equal(Number(await row.getAttribute("data-ff")), 2 ** -30);
  assert.equal(Number(await page.getAttribute("#ff-cancel tr[data-k='20']", "data-f32")), 2 ** -20);
  // CG on 1D Poisson n = 512: float32 stalls, float-float goes on.
  const f32Cg = Number(await summary.getAttribute("data-f32-cg-residual"));
  const ffCg = Number(await summary.getAttribute("data-ff-cg-residual"));
  assert.ok(ffCg <= 1e-11, `float-float CG ${ffCg}`);
  assert.ok(f32Cg > 1e-7, `float32 CG ${f32Cg}`);
  // The error-free transformations as this package compiled them, for this backend.
  const source = await page.textContent("#ff-source");
  if (backend === "webgpu") {
    assert.match(source, /fn ff_two_sum\(a: vec4<f32>, b: vec4<f32>\) -> Ff \{/);
    assert.match(source, /fn ff_two_prod\(a: vec4<f32>, b: vec4<f32>\) -> Ff \{/);
    assert.match(source, /fma\(a, b, -p\)/);
  } else {
    assert.match(source, /Ff ff_two_sum\(vec4 a, vec4 b\) \{/);
    assert.match(source, /Ff ff_two_prod\(vec4 a, vec4 b\) \{/);
  }
  assert.match(source, /(let|vec4) e = ff_opaque\(a - ff_opaque\(s - bb\)\) \+ ff_opaque\(b - bb\);/);
  assert.match(source, /\(\(ah \* bh - p\) \+ ah \* bl \+ al \* bh\) \+ al \* bl/);
  assert.match(await page.textContent("#ff-status"), new RegExp(`done on ${backend}`));
  // Nothing left on the GPU once every run is over: the lesson's, and the first product's kernels
  // table, which its click stopped (the kernel then under way ends beside the lesson).
  await page.waitForSelector("#square-result-kernels[data-done]", { state: "attached", timeout: 60_000 });
  await page.waitForFunction(() => /^0 live/.test(document.getElementById("cap-memory").textContent), null, { timeout: 5_000 });
  assert.deepEqual(problems, []);
  await page.close();
});
