// End-to-end, on each backend: the kernel labs (edit a kernel, run it on the GPU, every element
// checked against float64; a compile error at its line; reset; the same Gpgpu computing on),
// the downloads (a table as CSV, plots as PNG and SVG, the wall's frame stats as CSV), the
// alerts at the top (no GPU, a GPU lost), and the NMF lab never holding the page long.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { launch, openPage, sharedBrowser, testOnEachBackend } from "./browser.mjs";

const shared = sharedBrowser(before, after);

/** One page per backend, shared by the tests of this file in order (opening one on WebGPU
 * takes 20 s here, its kernels compiled by a CPU-emulated GPU); closed with the browser. */
const pages = {};

/** The page on `backend` at 1280 px, once the first product (and its kernels table) is done. */
async function open(backend) {
  if (!pages[backend]) {
    pages[backend] = (async () => {
      const { page, problems } = await openPage(shared.browser, shared.server, `?backend=${backend}`);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.waitForSelector("#square-result-kernels[data-done]", { timeout: 90_000 });
      return { page, problems };
    })();
  }
  return pages[backend];
}

/** Runs lab `id`'s editor body (after `edit`, if given) and waits for its state. */
async function runLab(page, id, edit) {
  const text = page.locator(`#${id} textarea`);
  if (edit) await text.fill(edit(await text.inputValue()));
  await page.click(`#${id} .lab-run`, { timeout: 120_000 });
  // The click disables the page's buttons until its run is over: wait for that, not only for
  // a state, which until the run starts is the last run's.
  await page.waitForFunction((id) => !document.querySelector(`#${id} .lab-run`).disabled, id, { timeout: 120_000 });
  await page.waitForSelector(`#${id}:is([data-state=ran], [data-state=compile-error], [data-state=error])`, { timeout: 60_000 });
  return page.getAttribute(`#${id}`, "data-state");
}

testOnEachBackend(test, "the kernel labs run an edited kernel against float64, show a compile error at its line, reset, and the same Gpgpu computes on", async (backend) => {
  const { page, problems } = await open(backend);
  const lang = backend === "webgpu" ? "wgsl" : "glsl";
  await page.waitForSelector("#lab-multiply[data-state=original]");
  assert.equal(await page.getAttribute("#lab-multiply", "data-lang"), lang);
  const original = await page.locator("#lab-multiply textarea").inputValue();
  assert.match(original, lang === "wgsl" ? /fn kernel\(texel: vec2<i32>\) -> vec4<f32>/ : /vec4 kernel\(ivec2 texel\)/);

  // An edit that computes the same product another way (the step's first two terms swapped):
  // still within the bound everywhere.
  const reordered = (src) => src.replace("acc += a_texel(p, y) * b.x + a_texel(p + 1, y) * b.y", "acc += a_texel(p + 1, y) * b.y + a_texel(p, y) * b.x");
  assert.notEqual(reordered(original), original);
  assert.equal(await runLab(page, "lab-multiply", () => reordered(original)), "ran");
  assert.equal(await page.getAttribute("#lab-multiply", "data-within-bound"), "true");
  assert.match(await page.textContent("#lab-multiply .lab-summary"), /All 91 elements are within their bound/);
  // A kernel that compiles but computes something else: the check says so.
  assert.equal(await runLab(page, "lab-multiply", () => original.replace("* b.y\n", "* b.z\n")), "ran");
  assert.equal(await page.getAttribute("#lab-multiply", "data-within-bound"), "false");
  assert.match(await page.textContent("#lab-multiply .lab-summary"), /elements are outside their bound.*Your kernel computes something else/);

  // A compile error: an unknown name on one line of the body is shown at that line.
  const lines = original.split("\n");
  const at = lines.findIndex((l) => l.includes("let k = a_cols()") || l.includes("int k = a_cols()")) + 1;
  assert.ok(at > 1);
  assert.equal(await runLab(page, "lab-multiply", () => lines.map((l, i) => (i === at - 1 ? l.replace("a_cols()", "a_colz()") : l)).join("\n")), "compile-error");
  assert.equal(await page.getAttribute("#lab-multiply", "data-error-lines"), String(at));
  assert.match(await page.textContent(`#lab-multiply .compile-error li[data-line="${at}"]`), /a_colz/);
  assert.equal(await page.locator("#lab-multiply .gutter div.error").allTextContents().then((t) => t.join()), String(at));
  // The page and the same Gpgpu compute on: the multiply form, and the lab's own original again.
  await page.click("#multiply-form button[type=submit]");
  await page.waitForSelector("#multiply-result-kernels[data-done]", { timeout: 60_000 });
  assert.equal(await page.getAttribute("#multiply-result-summary", "data-within-bound"), "true");
  // Reset restores the original body, unmarked.
  await page.click("#lab-multiply .lab-reset");
  assert.equal(await page.locator("#lab-multiply textarea").inputValue(), original);
  assert.equal(await page.getAttribute("#lab-multiply", "data-state"), "original");
  assert.equal(await page.getAttribute("#lab-multiply", "data-error-lines"), "");
  assert.equal(await runLab(page, "lab-multiply"), "ran");
  assert.equal(await page.getAttribute("#lab-multiply", "data-within-bound"), "true");

  // Lesson 6: a compute shader with workgroup memory on WebGPU; the fragment kernel on WebGL2.
  await page.waitForSelector("#lab-compute[data-state=original]");
  const compute = await page.locator("#lab-compute textarea").inputValue();
  if (backend === "webgpu") assert.match(compute, /var<workgroup> a_tile[\s\S]*workgroupBarrier\(\)/);
  else assert.match(await page.textContent("#lab-compute .kernel-lab-note"), /WebGL2 has no compute shaders/);
  assert.equal(await runLab(page, "lab-compute"), "ran");
  assert.equal(await page.getAttribute("#lab-compute", "data-within-bound"), "true");
  assert.match(await page.textContent("#lab-compute .lab-summary"), /All 1073 elements are within their bound/);

  // The explorer: the kernel that ran (the fused expression's) is offered to edit and run.
  await page.click("#explorer-form button[type=submit]");
  await page.waitForSelector("#lab-explorer[data-state=original]", { timeout: 60_000 });
  assert.match(await page.locator("#lab-explorer textarea").inputValue(), /f_div\(f_mul\(a_texel/);
  assert.equal(await runLab(page, "lab-explorer"), "ran");
  assert.equal(await page.getAttribute("#lab-explorer", "data-within-bound"), "true");
  const expression = await page.locator("#lab-explorer textarea").inputValue();
  assert.equal(await runLab(page, "lab-explorer", () => expression.replace("f_div(f_mul(", "f_div(f_add(")), "ran");
  assert.equal(await page.getAttribute("#lab-explorer", "data-within-bound"), "false");

  assert.deepEqual(problems, []);
});

testOnEachBackend(test, "downloads: a results table as CSV, plots as PNG and SVG, the wall's frame stats as CSV", async (backend) => {
  const { page, problems } = await open(backend);
  const save = async (click) => {
    const [download] = await Promise.all([page.waitForEvent("download"), click()]);
    return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
  };
  // The square's kernels table: its CSV holds the table's rows, cell for cell.
  const cells = await page.$$eval("#square-result-kernels tr", (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
  const table = await save(() => page.click("#square-result-kernels caption .downloads button"));
  assert.equal(table.name, "square-result-kernels.csv");
  const rows = table.bytes.toString("utf8").trimEnd().split("\r\n").map((line) => line.split(","));
  assert.equal(rows.length, cells.length);
  assert.deepEqual(rows[0], ["kernel", "compute", "GFLOPS", "worst element / bound"]);
  assert.deepEqual(rows.slice(1).map((r) => r[0]), cells.slice(1).map((r) => r[0]));
  assert.equal(rows[1][3], cells[1][3]);
  // The heatmap (a canvas) as PNG; lesson 1's picture (an svg) as SVG.
  const png = await save(() => page.click("#square-result-heatmap + .downloads button"));
  assert.equal(png.name, "square-result-heatmap.png");
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const svg = await save(() => page.locator("#lesson-gpu [data-part=picture] svg + .downloads button").click());
  assert.match(svg.bytes.toString("utf8"), /^<\?xml[^>]*>\n<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>$/);
  assert.match(svg.name, /\.svg$/);
  // The wall: three frames, then their stats as CSV, one row each.
  for (let f = 1; f <= 3; f++) {
    await page.click("#wall-step");
    await page.waitForSelector(`#wall-stats[data-frame='${f}']`, { timeout: 60_000 });
  }
  const frames = await save(() => page.click("#wall-stats-csv"));
  assert.equal(frames.name, "wall-frames.csv");
  const lines = frames.bytes.toString("utf8").trimEnd().split("\r\n").map((l) => l.split(","));
  assert.equal(lines[0][0], "frame");
  assert.deepEqual(lines.slice(1).map((l) => l[0]), ["1", "2", "3"]);
  assert.ok(lines.slice(1).every((l) => l.length === lines[0].length && Number(l[lines[0].indexOf("frame_ms")]) > 0));

  assert.deepEqual(problems, []);
});

testOnEachBackend(test, "with no GPU at all, the page says so at the top in plain words, with what to do", async (backend) => {
  const nothing = await launch({ webgpu: false, webgl: false });
  try {
    const { page } = await openPage(nothing, shared.server, `?backend=${backend}`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForSelector("#fatal:not([hidden])");
    const box = await page.locator("#fatal").boundingBox();
    assert.ok(box && box.y < 40, `the message is at ${JSON.stringify(box)}`);
    const named = backend === "webgpu" ? "WebGPU" : "WebGL2";
    assert.match(await page.textContent("#fatal .headline"), new RegExp(`^This page cannot compute here: ${named}, which the address asks for, is not available`));
    const todo = await page.$$eval("#fatal li", (lis) => lis.map((li) => li.textContent));
    assert.ok(todo.some((t) => /hardware \(graphics\) acceleration/.test(t)), todo.join(" | "));
    assert.equal(await page.getAttribute("#fatal li a", "href"), "?backend=auto");
    // The technical reason, in wgpu's and the browser's words, one click away.
    assert.ok(await page.isHidden("#fatal details pre"));
    assert.match(await page.textContent("#fatal details pre"), new RegExp(`^No GPU backend could be started\\.\\n${named} unavailable: `));
    await page.close();
  } finally {
    await nothing.close();
  }
});

testOnEachBackend(test, "the NMF lab never holds the page for long: no task of its run over 150 ms", async (backend) => {
  const { page, problems } = await open(backend);
  // The page's own start-up work done first (the wall's shaders, built after the first result).
  await page.waitForSelector("#wall-status:not([data-compiling])", { timeout: 120_000 });
  // The long tasks (over 50 ms) of the page's main thread while the lab factorises 512 parts
  // images with k = 72, 4 iterations drawn every 2, and checks 2 of them against float64.
  // Before: the float64 check held the page 1 to 3 s, the images' making 0.2 to 0.5 s, and on
  // WebGL2 each check of the error a second or more (the read waited for the queued iterations).
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => ({ start: e.startTime, ms: e.duration })))).observe({ type: "longtask" });
  });
  for (const [id, v] of [["images", "512"], ["k", "72"], ["iterations", "4"], ["every", "2"]]) await page.fill(`#nmf-${id}`, v);
  const start = await page.evaluate(() => performance.now());
  await page.click("#nmf-form button[type=submit]");
  await page.waitForSelector("#nmf-summary", { timeout: 120_000 });
  const tasks = await page.evaluate((s) => window.longTasks.filter((t) => t.start >= s).map((t) => Math.round(t.ms)), start);
  const longest = Math.max(0, ...tasks);
  console.log(`NMF lab on ${backend}: ${tasks.length} long tasks, the longest ${longest} ms (${tasks.join(", ")})`);
  // Before: 270 to 350 ms on WebGL2's first run, a read waiting in readPixels for the first
  // draws of the new kernels (the driver building their pipelines); now every read after a new
  // kernel waits for the GPU between turns of the event loop.
  // The bound leaves room for a loaded machine: on WebGL2 the longest task is 60-77 ms on a quiet
  // 2-core VM here and was 102 and 115 ms in two CI runs among other work; a regression to the
  // holds above (270 ms and more) still fails it.
  assert.ok(longest < 150, `a task of ${longest} ms: ${tasks.join(", ")}`);
  assert.equal(await page.getAttribute("#nmf-summary", "data-iterations"), "4");
  assert.ok(Number(await page.getAttribute("#nmf-summary", "data-diff")) < 1e-3);
  assert.deepEqual(problems, []);
});

testOnEachBackend(test, "a GPU lost while the student is far down the page is said at the top of the window, in plain words", async (backend) => {
  const { page, problems } = await open(backend);
  await page.locator("#kernel-lab-compute").scrollIntoViewIfNeeded();
  assert.ok(await page.evaluate(() => window.scrollY) > 2000);
  await page.evaluate(() => document.getElementById("lose-gpu").click());
  await page.waitForSelector("#gpu-lost:not([hidden])");
  const box = await page.locator("#gpu-lost").boundingBox();
  assert.ok(box && box.y >= 0 && box.y < 80, `the alert is at ${JSON.stringify(box)}`);
  assert.match(await page.textContent("#gpu-lost .headline"), /^Your GPU stopped/);
  // The technical reason, in the browser's words, one click away; the labs run on the new GPU.
  await page.waitForSelector("#gpu-lost[data-state='restored']", { timeout: 60_000 });
  assert.match(await page.textContent("#gpu-lost .headline"), /and is back/);
  assert.match(await page.textContent("#gpu-lost details"), /The GPU went away \(.+\) and came back/);
  assert.equal(await runLab(page, "lab-multiply"), "ran");
  assert.equal(await page.getAttribute("#lab-multiply", "data-within-bound"), "true");
  assert.deepEqual(problems, []);
  await page.close();
});
