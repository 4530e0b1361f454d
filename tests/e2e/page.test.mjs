// End-to-end: the real page in headless Chromium, on each backend, checked as a person sees it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { serve, launch, openPage } from "./browser.mjs";

let server;
let browser;
before(async () => {
  server = await serve();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

/** Opens the page with `query` (see browser.mjs's openPage). */
const open = (query, inBrowser = browser) => openPage(inBrowser, server, query);

for (const backend of ["webgpu", "webgl2"]) {
  test(`the page squares a matrix on ${backend} and shows it matches float64`, async () => {
    const { page, problems } = await open(`?backend=${backend}`);
    await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
    assert.equal(await page.textContent("#cap-backend"), backend === "webgpu" ? "WebGPU" : "WebGL2");
    assert.match(await page.textContent("#cap-reason"), /asked for by name/);
    assert.ok((await page.textContent("#cap-adapter")).length > 0);
    assert.match(await page.textContent("#cap-max"), /^\d+ texels/);
    assert.equal(await page.getAttribute("#cap-float32", "data-ieee"), "true");
    assert.match(await page.textContent("#cap-float32"), /^IEEE 754 float32: all 10 checks/);
    // Here (SwiftShader) WebGPU takes the registers-only compute kernel (a software adapter)
    // and WebGL2 the fast fragment kernel (no compute shaders).
    const kernel = backend === "webgpu" ? "registers" : "fast";
    assert.equal(await page.getAttribute("#cap-products", "data-kernel"), kernel);
    assert.match(await page.textContent("#cap-products"), new RegExp(`matmul, square and mulVec run the ${kernel} kernel: `));
    const summary = page.locator("#square-result-summary");
    assert.equal(await summary.getAttribute("data-within-bound"), "true");
    const maxRel = Number(await summary.getAttribute("data-max-rel"));
    assert.ok(maxRel < 1e-5, `max relative error ${maxRel}`);
    assert.match(await summary.textContent(), /All 4096 elements are within the float32 error bound/);
    const rows = await page.$$eval("#square-result-table tr", (trs) => trs.slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert.ok(rows.length >= 10, `only ${rows.length} sample rows`);
    for (const [i, j, g, e] of rows) {
      assert.ok(Number(i) < 64 && Number(j) < 64);
      assert.ok(Math.abs(Number(g) - Number(e)) <= 1e-4 * Math.max(1, Math.abs(Number(e))), `${g} vs ${e}`);
    }

    // Every kernel on the same product, side by side: the teaching and the fast fragment
    // kernels everywhere, the compute path on WebGPU only; all within the bound.
    await page.waitForSelector("#square-result-kernels[data-done]", { timeout: 60_000 });
    const kernels = await page.$$eval("#square-result-kernels tr[data-kernel]", (trs) => trs.map((tr) => [tr.dataset.kernel, tr.dataset.withinBound ?? tr.textContent]));
    assert.deepEqual(kernels.map(([k]) => k), ["teaching", "fast", "compute", "registers"]);
    assert.equal(kernels[0][1], "true");
    assert.equal(kernels[1][1], "true");
    for (const compute of kernels.slice(2)) {
      if (backend === "webgpu") assert.equal(compute[1], "true");
      else assert.match(compute[1], /WebGPU only/);
    }
    await page.selectOption("#square-kernel", "fast");
    await page.fill("#square-n", "67");
    await page.click("#square-form button");
    await page.waitForFunction(() => document.querySelector("#square-result-summary p")?.textContent.includes("fast fragment kernel"), null, { timeout: 60_000 });
    assert.equal(await page.getAttribute("#square-result-summary", "data-within-bound"), "true");
    await page.waitForSelector("#square-result-kernels[data-done]", { timeout: 60_000 });
    await page.selectOption("#square-kernel", "teaching");

    // A general product with odd shapes, through the form as a person would.
    await page.fill("#multiply-m", "13");
    await page.fill("#multiply-k", "29");
    await page.fill("#multiply-n", "7");
    await page.click("#multiply-form button");
    await page.waitForSelector("#multiply-result-summary", { timeout: 60_000 });
    assert.equal(await page.getAttribute("#multiply-result-summary", "data-within-bound"), "true");
    // The page is busy until every kernel has run the same product too.
    await page.waitForSelector("#multiply-result-kernels[data-done]", { timeout: 60_000 });
    assert.equal(await page.$$eval("#multiply-result-kernels tr[data-within-bound=true]", (trs) => trs.length), backend === "webgpu" ? 4 : 2);

    // Bad input is a clear message, and the page keeps working.
    await page.fill("#square-n", "0");
    await page.evaluate(() => document.getElementById("square-form").requestSubmit());
    await page.waitForSelector("#square-result .error");
    assert.match(await page.textContent("#square-result .error"), /n must be a whole number from 1 to 2048/);
    await page.fill("#square-n", "33");
    await page.click("#square-form button");
    await page.waitForSelector("#square-result-summary");
    assert.match(await page.textContent("#square-result-summary"), /All 1089 elements/);

    // The operation explorer: the seed's fused expression, its shader and its errors.
    await page.click("#explorer-form button");
    await page.waitForSelector("#explorer-summary", { timeout: 60_000 });
    assert.ok(Number(await page.getAttribute("#explorer-summary", "data-max-ulp")) < 8);
    assert.match(await page.textContent("#explorer-shader"), backend === "webgpu" ? /fn kernel\(texel: vec2<i32>\)/ : /vec4 kernel\(ivec2 texel\)/);
    assert.match(await page.textContent("#explorer-shader"), /f_div\(f_mul\(a_texel/);
    await page.selectOption("#explorer-op", "sincos");
    await page.click("#explorer-form button");
    await page.waitForFunction(() => document.querySelector("#explorer-summary p")?.textContent.includes("sincos"));
    assert.ok(Number(await page.getAttribute("#explorer-summary", "data-max-ulp")) < 8);
    assert.match(await page.textContent("#explorer-shader"), /f_cos\(a_texel/);
    await page.selectOption("#explorer-op", "matmulCompute");
    await page.click("#explorer-form button");
    if (backend === "webgpu") {
      await page.waitForFunction(() => document.querySelector("#explorer-summary p")?.textContent.includes("compute path"));
      assert.match(await page.textContent("#explorer-shader"), /@compute @workgroup_size\(16, 16\)/);
    } else {
      await page.waitForSelector("#explorer-result .error");
      assert.match(await page.textContent("#explorer-result .error"), /needs WebGPU/);
    }
    await page.selectOption("#explorer-op", "matmulFast");
    await page.click("#explorer-form button");
    await page.waitForFunction(() => document.querySelector("#explorer-summary p")?.textContent.includes("fast fragment kernel"));
    assert.match(await page.textContent("#explorer-shader"), backend === "webgpu" ? /@location\(1\) o1: vec4<f32>/ : /layout\(location = 1\) out vec4 out_1;/);
    await page.selectOption("#explorer-op", "mulVec");
    await page.click("#explorer-form button");
    await page.waitForFunction(() => document.querySelector("#explorer-summary p")?.textContent.includes("blocked"));

    // The accuracy table: texla's own functions within 8 ULP and IEEE special values; the GPU
    // built-ins and pow (a float32 product inside) are the flagged ones.
    await page.click("#accuracy-form button");
    await page.waitForSelector("#accuracy[data-done]", { timeout: 120_000 });
    const accuracy = await page.$$eval("#accuracy-table tr[data-expr]", (trs) => trs.map((tr) => ({ expr: tr.dataset.expr, flagged: tr.classList.contains("flagged") })));
    assert.ok(accuracy.length > 40, `${accuracy.length} rows`);
    const unexpected = accuracy.filter((r) => r.flagged && !r.expr.includes("_builtin"));
    assert.deepEqual(unexpected, []);
    assert.ok(accuracy.some((r) => r.flagged && r.expr.startsWith("sin_builtin")), "the GPU's sin is flagged");
    assert.ok(accuracy.some((r) => !r.flagged && r.expr === "sincos → cos"), "sincos is measured");
    assert.match(await page.textContent("#cap-memory"), /^0 live/);

    assert.deepEqual(problems, []);
    await page.close();
  });
}

test("the page's Content-Security-Policy allows only its own origin and no eval, and holds", async () => {
  const { page, problems } = await open("?backend=webgl2");
  await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
  const policy = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', "content");
  assert.match(policy, /default-src 'self'/);
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.doesNotMatch(policy, /unsafe-inline|'unsafe-eval'|\*|https?:/);
  // The policy is in force: a script the page would add inline, and eval, are refused.
  const refused = await page.evaluate(async () => {
    const seen = new Promise((done) => document.addEventListener("securitypolicyviolation", (e) => done(e.violatedDirective), { once: true }));
    const s = document.createElement("script");
    s.textContent = "window.inlineRan = true";
    document.body.append(s);
    return [await seen, window.inlineRan ?? false];
  });
  assert.deepEqual(refused, ["script-src-elem", false]);
  assert.deepEqual(problems.filter((p) => !p.includes("script-src-elem") && !p.includes("inline script")), []);
});

test("auto picks WebGPU here and says why", async () => {
  const { page, problems } = await open("");
  await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
  assert.equal(await page.getAttribute("#cap-backend", "data-backend"), "webgpu");
  assert.match(await page.textContent("#cap-reason"), /WebGL2 fallback was not needed/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the benchmark mode fills its table, JSON and plot, with peak bytes and the recorded peers", async () => {
  const { page, problems } = await open("?backend=webgl2&bench=products&sizes=16,32");
  await page.waitForSelector("#bench[data-done]", { timeout: 120_000 });
  const report = JSON.parse(await page.textContent("#bench-json"));
  assert.equal(report.backend, "webgl2");
  assert.deepEqual(report.rows.map((r) => r.n), [16, 32]);
  for (const r of report.rows) {
    for (const key of ["squareE2E", "squareResident", "squareFastResident", "squareTeachingResident", "mulE2E", "mulResident", "mulFastResident", "mulTeachingResident", "js"]) assert.ok(r[key] > 0, `${key} = ${r[key]}`);
    assert.equal(r.computeResident, null, "no compute path on WebGL2");
    assert.equal(r.computePeak, null);
    // Peak texture bytes: n/4 x n texels of 16 bytes per matrix. The teaching kernel: at most
    // A, X and X² live at once when squaring, A, B, X and X·B when multiplying (pooled textures
    // included). The default (the fast kernel on WebGL2) adds its slabs: 8 render targets of
    // n/8 columns each, one matrix's worth at these sizes.
    const matrix = 16 * r.n * (r.n / 4);
    assert.equal(r.squareTeachingPeak, 3 * matrix, `n = ${r.n}`);
    assert.equal(r.mulTeachingPeak, 4 * matrix, `n = ${r.n}`);
    assert.equal(r.squarePeak, 4 * matrix, `n = ${r.n}`);
    assert.equal(r.mulPeak, 5 * matrix, `n = ${r.n}`);
  }
  // The plot: drawn, one curve per path that ran and JavaScript, plus the recorded peers.
  const plot = page.locator("#bench-plot");
  assert.ok(await plot.isVisible());
  const drawn = await plot.evaluate((c) => {
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let colored = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - d[i + 1]) > 40 || Math.abs(d[i + 1] - d[i + 2]) > 40) colored++;
    return colored;
  });
  assert.ok(drawn > 500, `only ${drawn} coloured pixels on the plot`);
  const ran = new Set(report.rows.flatMap((r) => Object.keys(r).filter((k) => k.endsWith("E2E") && r[k] > 0)));
  assert.ok(ran.has("squareE2E") && ran.has("mulE2E"), [...ran].join(", "));
  assert.equal(await plot.getAttribute("data-series"), String(ran.size + 1 + Number(await plot.getAttribute("data-peers"))));
  const recorded = JSON.parse(await readFile(new URL("../../bench/peers/results.json", import.meta.url), "utf8"));
  const peers = new Set(recorded.runs.filter((r) => r.kind === "peer").map((r) => r.name));
  assert.equal(Number(await plot.getAttribute("data-peers")), peers.size);
  assert.ok(peers.size >= 3, `recorded peers: ${[...peers]}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the benchmark plot overlays the recorded H100 run through Dawn on request", async () => {
  const { page, problems } = await open("?backend=webgl2&bench=products&sizes=16&h100");
  await page.waitForSelector("#bench[data-done]", { timeout: 120_000 });
  assert.ok(await page.isChecked("#bench-h100"));
  const recorded = JSON.parse(await readFile(new URL("../../benchmarks/h100/dawn/run-split.json", import.meta.url), "utf8"));
  const paths = new Set(recorded.matmul.map((r) => r.path));
  assert.ok(paths.has("texla matmul") && paths.has("tfjs matMul"), [...paths].join(", "));
  const plot = page.locator("#bench-plot");
  assert.equal(Number(await plot.getAttribute("data-h100")), paths.size);
  const report = JSON.parse(await page.textContent("#bench-json"));
  const ran = new Set(report.rows.flatMap((r) => Object.keys(r).filter((k) => k.endsWith("E2E") && r[k] > 0)));
  const peers = Number(await plot.getAttribute("data-peers"));
  assert.equal(Number(await plot.getAttribute("data-series")), ran.size + 1 + peers + paths.size);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a matrix costs its padded texture and nothing more, counted at the WebGL2 and WebGPU APIs", async () => {
  const page = await browser.newPage();
  await page.addInitScript({ path: new URL("../../bench/gpu-bytes.js", import.meta.url).pathname });
  await page.goto(`${server.url}bench/peers/blank.html`);
  const result = await page.evaluate(async () => {
    const texla = await import("/pkg/texla.js");
    await texla.default();
    const out = {};
    for (const backend of ["webgpu", "webgl2"]) {
      gpuBytes.owner = backend;
      const gpu = await texla.Gpgpu.create(backend);
      const held = () => gpuBytes.of(backend).held;
      const textures = () => gpuBytes.of(backend).texture;
      const buffers = () => gpuBytes.of(backend).buffer;
      const start = held();
      const startTextures = textures();
      const startBuffers = buffers();
      const a = gpu.upload(new Float32Array(13 * 29).fill(1), 13, 29);
      const afterUpload = held() - start;
      const b = gpu.upload(new Float32Array(29 * 7).fill(1), 29, 7);
      // The teaching kernel: the product makes its result and no temporaries.
      const c = gpu.matmulTeaching(a, b);
      const product = await c.read();
      await gpu.finish();
      const afterProduct = textures() - startTextures;
      const buffersAfterProduct = buffers() - startBuffers;
      [a, b, c].forEach((m) => m.free());
      const pooled = textures() - startTextures;
      gpu.releasePooled();
      out[backend] = { afterUpload, afterProduct, buffersAfterProduct, pooled, released: textures() - startTextures, live: gpu.memory(), ok: product.every((v) => v === 29) };
    }
    return out;
  });
  for (const backend of ["webgpu", "webgl2"]) {
    const r = result[backend];
    assert.ok(r.ok, `${backend}: wrong product`);
    // 13x29: 29 x 4 texels; 29x7: 7 x 8; 13x7: 7 x 4; 16 bytes a texel.
    assert.equal(r.afterUpload, 16 * 29 * 4, backend);
    assert.equal(r.afterProduct, 16 * (29 * 4 + 7 * 8 + 7 * 4), `${backend}: textures of A, B and C and no other`);
    // Buffers: no read-back buffer left (it is 1 KiB here); a backend may keep the small uniform
    // buffer of the pass it ran (WebGPU caches them by content).
    assert.ok(r.buffersAfterProduct <= 256, `${backend}: ${r.buffersAfterProduct} buffer bytes held after the product`);
    assert.equal(r.pooled, r.afterProduct, `${backend}: freed matrices stay pooled`);
    assert.equal(r.released, 0, `${backend}: releasePooled frees them`);
    assert.equal(r.live.peakBytes, r.afterProduct, `${backend}: memory().peakBytes agrees with the API count`);
  }
  await page.close();
});

test("without WebGPU, auto falls back to WebGL2 and says why; forcing WebGPU says what is missing", async () => {
  const noWebGpu = await launch({ webgpu: false });
  try {
    const { page, problems } = await open("", noWebGpu);
    await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
    assert.equal(await page.getAttribute("#cap-backend", "data-backend"), "webgl2");
    assert.match(await page.textContent("#cap-reason"), /^fell back to WebGL2 because WebGPU unavailable: (navigator\.gpu is missing|navigator\.gpu\.requestAdapter\(\) gave no adapter)/);
    assert.equal(await page.getAttribute("#square-result-summary", "data-within-bound"), "true");
    assert.deepEqual(problems, []);

    const forced = await open("?backend=webgpu", noWebGpu);
    await forced.page.waitForSelector("#fatal:not([hidden])");
    assert.match(await forced.page.textContent("#fatal"), /No GPU backend could be started\.\nWebGPU unavailable: navigator\.gpu/);
    assert.equal(await forced.page.textContent("#cap-backend"), "none");
  } finally {
    await noWebGpu.close();
  }
});

test("with no GPU backend at all, the page names what is missing on both", async () => {
  const nothing = await launch({ webgpu: false, webgl: false });
  try {
    const { page } = await open("", nothing);
    await page.waitForSelector("#fatal:not([hidden])");
    const text = await page.textContent("#fatal");
    assert.match(text, /no GPU backend works here\. WebGPU unavailable: .+\. WebGL2 unavailable: canvas\.getContext\("webgl2"\) returned null\./);
  } finally {
    await nothing.close();
  }
});

test("the function and matrix-vector benchmarks fill their tables", async () => {
  for (const [kind, sizes, check] of [
    ["functions", "64", (r) => r.gpu > 0 && r.js > 0],
    ["sweep", "8,16", (r) => ["sqrt", "sinh", "div", "pow"].every((f) => r[f] > 0 && r[`${f}JS`] > 0)],
    ["figure3", "40", (r) => r.gpuMs > 0 && r.jsMs >= 0],
    ["figure8", "4,9", (r) => r.fragmentMs > 0 && r.computeMs > 0 && r.jsMs >= 0],
    ["matvec", "16,31", (r) => r.blocked > 0 && r.naive > 0 && r.compute > 0 && r.js > 0],
    ["products", "16,32", (r) => r.computeResident > 0 && r.mulResident > 0 && r.mulFastResident > 0 && r.squareFastResident > 0],
    ["lcp", "40", (r) => r.ms > 0 && r.jsMs > 0 && r.error < 1e-5],
    // ceil(16 / perPass) passes plus the fill of the partial product; matmul in one.
    ["passes", "16", (r) => r.ms > 0 && r.passes === (r.path.startsWith("matmul") ? 1 : 1 + Math.ceil(16 / r.perPass))],
  ]) {
    const { page, problems } = await open(`?backend=webgpu&bench=${kind}&sizes=${sizes}`);
    await page.waitForSelector("#bench[data-done]", { timeout: 120_000 });
    const report = JSON.parse(await page.textContent("#bench-json"));
    assert.equal(report.kind, kind);
    assert.ok(report.rows.length > 0 && report.rows.every(check), JSON.stringify(report.rows));
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("the solvers run on the page beside float64, with a plot", async () => {
  for (const backend of ["webgpu", "webgl2"]) {
    const { page, problems } = await open(`?backend=${backend}`);
    await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
    const lcpCompute = backend === "webgpu" ? [["lcp-compute", "lcp", 1e-5]] : [];
    // The last: a 201 x 201 Poisson grid, 40,401 unknowns, its matrix applied as a stencil.
    for (const [kind, problem, bound, n = "60"] of [["cg", "poisson1d", 1e-4], ["cg-fused", "spd", 1e-4], ["jacobi", "jacobi", 1e-4], ["lcp", "lcp", 1e-5], ...lcpCompute, ["cg", "poisson2d", 1e-2, "201"]]) {
      await page.selectOption("#solver-kind", kind);
      await page.selectOption("#solver-problem", problem);
      await page.fill("#solver-n", n);
      await page.fill("#solver-iter", n === "60" ? "500" : "3000");
      await page.fill("#solver-tol", n === "60" ? "1e-6" : "1e-4");
      await page.click("#solver-form button[type=submit]");
      await page.waitForSelector("#solver-summary", { timeout: 60_000 });
      const gpuError = Number(await page.getAttribute("#solver-summary", "data-gpu-error"));
      const jsError = Number(await page.getAttribute("#solver-summary", "data-js-error"));
      assert.ok(gpuError < bound, `${backend} ${kind}: GPU error ${gpuError}`);
      assert.ok(jsError < bound, `${backend} ${kind}: JS error ${jsError}`);
      assert.ok(Number(await page.textContent("#solver-true-residual")) < (n === "60" ? 1e-4 : 2e-4));
      if (problem === "poisson2d") assert.match(await page.textContent("#solver-summary"), /40401 \(a 201 × 201 grid, its matrix applied as a stencil\)/);
      const plotted = await page.$eval("#solver-plot", (c) => c.width > 0 && c.getContext("2d").getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 0 && v < 200));
      assert.ok(plotted, "the convergence plot is drawn");
      await page.evaluate(() => document.getElementById("solver-result").replaceChildren());
    }
    if (backend === "webgl2") {
      // The single-dispatch solver needs compute shaders: a clear message.
      await page.selectOption("#solver-kind", "lcp-compute");
      await page.selectOption("#solver-problem", "lcp");
      await page.click("#solver-form button[type=submit]");
      await page.waitForSelector("#solver-result .error");
      assert.match(await page.textContent("#solver-result .error"), /needs WebGPU/);
    }
    // A mismatched choice is a clear message, and cancel stops a long run.
    await page.selectOption("#solver-kind", "cg");
    await page.selectOption("#solver-problem", "lcp");
    await page.click("#solver-form button[type=submit]");
    await page.waitForSelector("#solver-result .error");
    assert.match(await page.textContent("#solver-result .error"), /projected Jacobi solves the LCP problem/);
    await page.selectOption("#solver-kind", "jacobi");
    await page.selectOption("#solver-problem", "jacobi");
    await page.selectOption("#solver-alpha", "1.1");
    await page.fill("#solver-n", "400");
    await page.fill("#solver-tol", "1e-30");
    await page.fill("#solver-iter", "100000");
    await page.click("#solver-form button[type=submit]");
    await page.waitForFunction(() => document.getElementById("solver-result").textContent.includes("GPU: iteration"));
    await page.click("#solver-cancel");
    await page.waitForSelector("#solver-result .error", { timeout: 30_000 });
    assert.match(await page.textContent("#solver-result .error"), /cancelled/);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("NMF factorises images on the page beside float64, draws its parts and takes the user's images", async () => {
  // A small run (64 generated images, k = 8) so that it is quick on SwiftShader; float64's U after
  // 2 iterations within 1e-4 of the largest entry (float32 products of inner dimension <= 361).
  for (const backend of ["webgpu", "webgl2"]) {
    const { page, problems } = await open(`?backend=${backend}`);
    await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
    await page.fill("#nmf-images", "64");
    await page.fill("#nmf-k", "8");
    await page.fill("#nmf-iterations", "20");
    await page.fill("#nmf-every", "10");
    await page.click("#nmf-form button[type=submit]");
    await page.waitForSelector("#nmf-summary", { timeout: 120_000 });
    assert.equal(await page.getAttribute("#nmf-summary", "data-iterations"), "20");
    const diff = Number(await page.getAttribute("#nmf-summary", "data-diff"));
    assert.ok(diff < 1e-4 * 3, `${backend}: U differs from float64 by ${diff}`);
    const errors = await page.$$eval("#nmf-table td:nth-child(2)", (cells) => cells.map((c) => Number(c.textContent)));
    assert.ok(errors.at(-1) < errors[0] / 10, `${backend}: the error fell ${errors}`);
    assert.equal(await page.getAttribute("#nmf-view", "data-iterations"), "20");
    // k larger than the images is a clear message; so is a file that is no image.
    await page.fill("#nmf-k", "65");
    await page.click("#nmf-form button[type=submit]");
    await page.waitForSelector("#nmf-result .error");
    assert.match(await page.textContent("#nmf-result .error"), /k must be a whole number from 1 to 64/);
    await page.setInputFiles("#nmf-files", { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not an image") });
    await page.waitForFunction(() => /not an image/.test(document.getElementById("nmf-result").textContent));
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("the seed 001 section optimises an example, checks it in float64, autotunes and drives the cars", async () => {
  for (const backend of ["webgpu", "webgl2"]) {
    const { page, problems } = await open(`?backend=${backend}`);
    await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
    await page.selectOption("#linear-example", "rk-cars");
    await page.fill("#linear-moves", "40000");
    await page.click("#linear-form button[type=submit]");
    await page.waitForSelector("#linear-summary", { timeout: 120_000 });
    const summary = await page.$eval("#linear-summary", (p) => ({ ...p.dataset, text: p.textContent }));
    assert.equal(summary.before, "20", `${backend}: ${summary.text}`);
    assert.equal(summary.after, "14", `${backend}: ${summary.text}`);
    assert.equal(summary.withinBound, "true", `${backend}: ${summary.text}`);
    assert.match(summary.text, /cost 20 → 14 .*the winner: annealed from/);
    // Both matrices drawn, with their text alternatives; the curves and the shader shown.
    for (const id of ["linear-before", "linear-after"]) {
      const c = await page.$eval(`#${id}`, (el) => ({ w: el.width, cost: el.dataset.cost, nz: el.dataset.nonzeros, label: el.getAttribute("aria-label"), caption: el.nextElementSibling.textContent }));
      assert.ok(c.w > 100, `${id} drawn`);
      assert.equal(c.nz, "50");
      assert.match(c.label, /20 × 20, 50 non-zeros/);
      assert.equal(c.caption, c.label);
    }
    assert.match(await page.getAttribute("#linear-curve", "aria-label"), /8 annealing runs/);
    assert.match(await page.textContent("#linear-shader"), backend === "webgpu" ? /fn |textureLoad/ : /#version 300 es/);
    assert.match(await page.textContent("#linear-cars-costs"), /costs 20 four-wide instructions in the natural order and 14 in the optimised one.*80 → 56/);
    // The cars animate from the GPU state: the frame counter advances.
    await page.waitForFunction(() => Number(document.getElementById("linear-cars").dataset.frame) >= 5, null, { timeout: 60_000 });
    const frame = Number(await page.getAttribute("#linear-cars", "data-frame"));
    await page.waitForFunction((f) => Number(document.getElementById("linear-cars").dataset.frame) > f, frame, { timeout: 60_000 });
    assert.match(await page.textContent("#linear-cars-stats"), /^frame \d+ \(optimised order\): car 1 bounce /);
    // The autotune fills its table (natural, optimised, red-black, slabs) and keeps one.
    await page.click("#linear-autotune");
    await page.waitForSelector("#linear-tune-table", { timeout: 120_000 });
    const orders = await page.$$eval("#linear-tune-table tr[data-order]", (trs) => trs.map((tr) => [tr.dataset.order, Number(tr.cells[2].textContent)]));
    assert.ok(orders.length >= 3 && orders.length <= 4, JSON.stringify(orders));
    assert.equal(orders[0][0], "natural");
    // Its kernels counted (measure 2): the natural order's 20 instructions and 5 texel fetches.
    const counts = await page.$$eval("#linear-tune-table tr[data-order]", (trs) => trs.map((tr) => tr.cells[4].textContent));
    assert.equal(counts[0], "20 / 5; 20 / 5");
    assert.ok(counts.every((c) => /^\d+ \/ \d+; \d+ \/ \d+$/.test(c)), JSON.stringify(counts));
    assert.ok(orders.every(([, ms]) => ms > 0), JSON.stringify(orders));
    assert.equal(await page.locator("#linear-tune-table tr.best").count(), 1);
    assert.match(await page.textContent("#linear-tune-verdict"), /^The fastest here is .+, kept: .*(packing pays|packing does not pay)/);
    // Another example: the 2D S block in the paper's order, 6 -> 4, within the bound.
    await page.selectOption("#linear-example", "poisson-2d-s");
    await page.click("#linear-form button[type=submit]");
    await page.waitForSelector("#linear-summary[data-before='6'][data-after='4'][data-within-bound='true']", { timeout: 60_000 });
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("the seed 001 stencils: Table 3 on the 2D teaching grid, the wave drawn, a stone dropped, Table 4", async () => {
  for (const backend of ["webgpu", "webgl2"]) {
    const { page, problems } = await open(`?backend=${backend}`);
    await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
    await page.selectOption("#linear-ebj-grid", "2d");
    await page.click("#linear-ebj-form button[type=submit]");
    await page.waitForSelector("#linear-ebj-table", { timeout: 120_000 });
    const rows = await page.$$eval("#linear-ebj-table tr[data-order]", (trs) => trs.map((tr) => [tr.dataset.order, tr.dataset.iterations, tr.cells[1].textContent]));
    assert.deepEqual(rows.map((r) => r[0]), ["gs", "natural", "optimized"], JSON.stringify(rows));
    // The abstract costs of the 8 x 8 elementary product: 10 natural, 8 in the paper's order.
    assert.match(rows[1][2], /^6 \/ 10 \(/);
    assert.match(rows[2][2], /^4 \/ 8 \(/);
    for (const [, its] of rows) assert.match(its, /^\d+,\d+,\d+$/);
    assert.equal(await page.getAttribute("#linear-ebj-table", "data-gs-fewer"), "true");
    assert.equal(await page.getAttribute("#linear-ebj-table", "data-optimized-fewer"), "true");
    assert.equal(await page.textContent("#linear-ebj-slabs"), "The optimised order's quadruples: slab 0: (x4, x7, x0, x3), slab 1: (x1, x5, x6, x2) (the paper's x̃ and x̂).");
    assert.match(await page.textContent("#linear-ebj-shader"), backend === "webgpu" ? /fn y_0\(x\d: vec4<f32>[\s\S]*fn y_1\(x\d: vec4<f32>/ : /vec4 y_0\(vec4 x\d[\s\S]*vec4 y_1\(vec4 x\d/);
    assert.match(await page.textContent("#linear-ebj-claims"), /Gauss-Seidel needs fewer iterations than EBJ: yes; the optimised order needs fewer than the natural one: yes/);
    // The wave: frames advance from the read-back heights; a click drops a stone.
    await page.click("#linear-wave-start");
    await page.waitForFunction(() => Number(document.getElementById("linear-wave").dataset.frame) >= 3, null, { timeout: 60_000 });
    assert.ok(Number(await page.getAttribute("#linear-wave", "data-max-height")) > 0.01);
    await page.click("#linear-wave", { position: { x: 40, y: 40 } });
    await page.waitForFunction(() => document.getElementById("linear-wave").dataset.stones === "1", null, { timeout: 60_000 });
    const frame = Number(await page.getAttribute("#linear-wave", "data-frame"));
    await page.waitForFunction((f) => Number(document.getElementById("linear-wave").dataset.frame) > f + 2, frame, { timeout: 60_000 });
    assert.match(await page.textContent("#linear-wave-stats"), /^frame \d+: four steps and the read-back of 262,144 heights took/);
    await page.click("#linear-wave-table");
    await page.waitForSelector("#linear-wave-table-4", { timeout: 180_000 });
    const cells = await page.$$eval("#linear-wave-table-4 tr[data-row='total'] td", (tds) => tds.slice(1).map((td) => Number(td.textContent)));
    assert.equal(cells.length, 3);
    assert.ok(cells.every((ms) => ms > 0), JSON.stringify(cells));
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("when the GPU goes away, the page says so, brings it back and runs again what it showed", async () => {
  for (const backend of ["webgpu", "webgl2"]) {
    const { page, problems } = await open(`?backend=${backend}`);
    await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
    await page.click("#wall-step");
    await page.waitForSelector("#wall-stats[data-frame='1']");
    // The square's result goes from the page, so that only running it again brings it back.
    await page.evaluate(() => document.getElementById("square-result").replaceChildren());
    await page.click("#lose-gpu");
    await page.waitForSelector("#gpu-lost[data-state='restored']", { timeout: 60_000 });
    const said = await page.textContent("#gpu-lost");
    const why = backend === "webgpu" ? "the WebGPU device was destroyed on request" : "the WebGL2 context was lost";
    assert.match(said, new RegExp(`The GPU went away \\(${why}\\) and came back: \\d+ matri(x|ces) restored .*, \\d+ lost with it\\. The sections that had shown a result ran again \\(square\\)`));
    await page.waitForSelector("#square-result-summary", { timeout: 60_000 });
    assert.equal(await page.locator("#square-result .error").count(), 0);
    assert.match(await page.textContent("#square-result-summary"), /within the float32 error bound/);
    assert.equal(await page.textContent("#cap-backend"), backend === "webgpu" ? "WebGPU" : "WebGL2");
    // The wall steps and draws on the new context, into the new canvas.
    assert.equal(await page.locator("#wall-canvas").count(), 1);
    await page.click("#wall-step");
    await page.waitForSelector("#wall-stats[data-frame='2']");
    assert.ok(await page.isHidden("#wall-error"));
    // The same Gpgpu serves every section afterwards.
    await page.click("#multiply-form button[type=submit]");
    await page.waitForSelector("#multiply-result-summary", { timeout: 60_000 });
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("the solver benchmark fills its table", async () => {
  const { page, problems } = await open("?backend=webgl2&bench=solvers&sizes=64&n=64");
  await page.waitForSelector("#bench[data-done]", { timeout: 240_000 });
  const report = JSON.parse(await page.textContent("#bench-json"));
  assert.deepEqual(report.rows.map((r) => r.solver), ["CG", "CG fused", "projected Jacobi", "Jacobi"]);
  assert.ok(report.rows.every((r) => r.gpuMs > 0 && r.jsMs > 0 && r.passes > 0), JSON.stringify(report.rows));
  assert.ok(report.rows[1].passes < report.rows[0].passes, "the fused CG runs fewer passes");
  assert.deepEqual(problems, []);
  await page.close();
});

/**
 * What a person sees of the wall's canvas: a screenshot (whatever the backend draws with),
 * decoded in the page; fractions of sky-coloured (the clear colour) and brick-coloured pixels.
 */
async function wallPicture(page) {
  const png = (await page.locator("#wall-canvas").screenshot()).toString("base64");
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement("canvas");
    [c.width, c.height] = [img.width, img.height];
    const g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let sky = 0, brick = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - 204) < 8 && Math.abs(d[i + 1] - 219) < 8 && Math.abs(d[i + 2] - 237) < 8) sky++;
      if (d[i] > d[i + 2] + 40) brick++;
    }
    const n = d.length / 4;
    return { sky: sky / n, brick: brick / n, pixels: Array.from(d.filter((_, i) => i % 4000 === 0)) };
  }, png);
}

for (const backend of ["webgpu", "webgl2"]) {
  test(`the wall is drawn on ${backend}, steps, takes a thrown ball and verifies in float64`, async () => {
    const { page, problems } = await open(`?backend=${backend}`);
    await page.waitForSelector("#wall-canvas", { timeout: 60_000 });
    assert.equal(await page.textContent("#wall-status"), `The LCP is solved and the view drawn on ${backend === "webgpu" ? "WebGPU" : "WebGL2"}.`);
    // The standing wall: sky above, bricks in the middle, the floor below.
    await page.waitForTimeout(300);
    const standing = await wallPicture(page);
    assert.ok(standing.sky > 0.05 && standing.sky < 0.9, `sky ${standing.sky}`);
    assert.ok(standing.brick > 0.05, `bricks ${standing.brick}`);

    // The default settings (the accelerated solver, 80 iterations); a click (no drag) throws
    // the ball.
    const box = await page.locator("#wall-canvas").boundingBox();
    await page.locator("#wall-canvas").click({ position: { x: box.width * 0.5, y: box.height * 0.55 } });
    for (let frame = 1; frame <= 4; frame++) {
      await page.click("#wall-step");
      await page.waitForFunction((f) => document.getElementById("wall-stats").dataset.frame === String(f), frame, { timeout: 60_000 });
    }
    assert.equal(await page.$eval("#wall-error", (e) => e.hidden), true, await page.textContent("#wall-error"));
    const stats = await page.textContent("#wall-stats");
    assert.match(stats, /bodies 61/, "the ball joined the 60 cubes");
    assert.match(stats, /iterations 80/);
    assert.match(stats, /solver accelerated, step -0\.\d+/);
    const [, energy, energyIn] = stats.match(/energy (\d+) of (\d+) J put in/).map(Number);
    assert.ok(energyIn > 20_000 && energy <= energyIn * 1.005, stats);
    // The picture follows the simulation (the ball is in it now), drawn after solves that read
    // back from the same device.
    await page.waitForTimeout(300);
    const hit = await wallPicture(page);
    assert.ok(hit.pixels.some((v, i) => v !== standing.pixels[i]), "the picture changed");

    // Verify: the float64 solve of the same LCP by the same solver agrees with the GPU's.
    const verified = async (solver) => {
      await page.click("#wall-verify");
      assert.match(await page.textContent("#wall-verify-table"), new RegExp(`float64 ${solver}, same start`));
      const cell = page.locator("#wall-verify-table td[data-diff]");
      const diff = Number(await cell.getAttribute("data-diff"));
      const largest = Number((await cell.textContent()).match(/of ([\d.e+-]+)/)[1]);
      assert.ok(largest > 0 && diff <= 1e-3 * largest, `${solver}: max |GPU - float64| ${diff} of ${largest}`);
    };
    await verified("accelerated projected Jacobi");

    // Dragging orbits the camera: the picture changes without a step.
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.35, { steps: 5 });
    await page.mouse.up();
    await page.waitForTimeout(300);
    const turned = await wallPicture(page);
    assert.ok(turned.pixels.some((v, i) => v !== hit.pixels[i]), "the camera turned");
    assert.equal(await page.textContent("#wall-stats").then((s) => s.match(/frame (\d+)/)[1]), "4");

    // The seed's preset is one click away: its controls follow; one frame at 50 iterations
    // (its 2n, dense, is a minute a frame on a CPU-emulated GPU) verifies as projected Jacobi.
    await page.selectOption("#wall-preset", "seed");
    assert.equal(await page.$eval("#wall-solver", (e) => e.value), "jacobi");
    assert.equal(await page.$eval("#wall-mode", (e) => e.value), "dense");
    await page.fill("#wall-iterations", "50");
    await page.dispatchEvent("#wall-iterations", "change");
    await page.click("#wall-step");
    await page.waitForFunction(() => document.getElementById("wall-stats").dataset.frame === "5", null, { timeout: 60_000 });
    assert.match(await page.textContent("#wall-stats"), /solver projected Jacobi, ω -0\.1.*iterations 50/);
    await verified("projected Jacobi");

    // The scene size: 10 walls step (600 cubes, 4200 contacts; Verify says the LCP is too
    // large to copy densely); 100 walls say plainly that they do not fit one texture.
    await page.selectOption("#wall-preset", "texla");
    await page.fill("#wall-iterations", "0");
    await page.dispatchEvent("#wall-iterations", "change");
    await page.selectOption("#wall-scene", "10");
    assert.match(await page.textContent("#wall-stats"), /bodies 600/);
    await page.click("#wall-step");
    await page.waitForFunction(() => document.getElementById("wall-stats").dataset.frame === "1", null, { timeout: 60_000 });
    assert.match(await page.textContent("#wall-stats"), /contacts solved 4200/);
    await page.click("#wall-verify");
    assert.match(await page.textContent("#wall-verify-result"), /12600 unknowns: too many to copy/);
    await page.selectOption("#wall-scene", "100");
    await page.click("#wall-step");
    await page.waitForFunction(() => !document.getElementById("wall-error").hidden, null, { timeout: 120_000 });
    assert.match(await page.textContent("#wall-error"), /42000 contacts do not fit the GPU/);
    assert.deepEqual(problems, []);
    await page.close();
  });
}
