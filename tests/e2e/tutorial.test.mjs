// End-to-end: the tutorial, on each backend, as a student and a teacher use it. Every lesson has
// all its parts and its check holds on this GPU; every exercise takes the right answer (computed
// here, not read from the page) and refuses a wrong one; presentation mode, the print handout,
// no sideways scrolling at 390 px, labelled controls, no console error, no off-origin request.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPage, sharedBrowser, testOnEachBackend } from "./browser.mjs";
import { EXERCISES } from "../../www/lessons/exercises.js";

const shared = sharedBrowser(before, after);

const LESSONS = ["gpu", "texture", "shader", "float", "targets", "compute", "reduce", "functions", "solvers", "lcp", "simd", "nmf"];

/** float32 spacing at |x|, from the bits. */
function ulp32(x) {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer);
  const here = f[0];
  u[0] += 1;
  return f[0] - here;
}

/** Passes of a 16-fold reduction of a w x h texel texture, plus the one adding 4 channels. */
function reductionPasses(w, h) {
  let passes = 1;
  for (; w > 1 || h > 1; passes++) [w, h] = [Math.ceil(w / 4), Math.ceil(h / 4)];
  return passes;
}

/** The 2 x 2 LCP by brute force over a grid of candidate x (steps of 0.5). */
function lcpByGrid(a, b) {
  for (let x0 = 0; x0 <= 10; x0 += 0.5) {
    for (let x1 = 0; x1 <= 10; x1 += 0.5) {
      const w = [a[0][0] * x0 + a[0][1] * x1 + b[0], a[1][0] * x0 + a[1][1] * x1 + b[1]];
      if (w.every((v) => v >= 0) && x0 * w[0] === 0 && x1 * w[1] === 0) return `${x0}, ${x1}`;
    }
  }
  return null;
}

/** Each exercise: a right answer worked out here independently, and a wrong one. */
const poissonEig = (k, n) => 2 - 2 * Math.cos((k * Math.PI) / (n + 1));
const tridiagonalBlocks = (n) => new Set(Array.from({ length: n }, (_, i) => [i - 1, i, i + 1].filter((j) => j >= 0 && j < n).map((j) => `${Math.floor(i / 4)},${Math.floor(j / 4)}`)).flat()).size;
const ANSWERS = {
  fragments: [String(64 * (64 / 4)), "4096"],
  texel: [`5, ${Math.floor(10 / 4)}, ${"rgba"[10 % 4]}`, "2, 5, b"],
  fetches: [String((64 / 4) * (4 + 1)), "64"],
  bound: [String(2 * 1002 / 2 ** 24), "1.19e-7"],
  targets: [String(4 + 8), "16"],
  workgroup: [String(16 * 16 * 8 * 8), "256"],
  passes: [String(reductionPasses(1024, 1024 / 4)), String(reductionPasses(1024, 1024 / 4) - 1)],
  ulp: [String(ulp32(1000)), String(ulp32(1024))],
  condition: [String(poissonEig(10, 10) / poissonEig(1, 10)), "121"],
  lcp: [lcpByGrid([[2, 1], [1, 2]], [-5, 1]), "1, 1"],
  blocks: [String(tridiagonalBlocks(12)), "9"],
  nmf: [String(144 * (361 + 1024)), String(361 * 1024)],
};

testOnEachBackend(test, "the tutorial: twelve lessons, each with its parts, a check that holds and an exercise", async (backend) => {
  const { page, problems } = await openPage(shared.browser, shared.server, `?backend=${backend}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForSelector("#square-result-kernels[data-done]", { timeout: 60_000 });

  // The table of contents: one link per lesson, in order, each to its lesson's anchor.
  const toc = await page.$$eval("#toc ol a", (as) => as.map((a) => a.getAttribute("href")));
  assert.deepEqual(toc, LESSONS.map((k) => `#lesson-${k}`));
  assert.deepEqual(await page.$$eval("section.lesson", (ss) => ss.map((s) => s.id)), LESSONS.map((k) => `lesson-${k}`));

  // Every check on this GPU.
  await page.click("#run-all-checks");
  await page.waitForSelector("#run-all-status[data-done]", { timeout: 90_000 });
  assert.match(await page.textContent("#run-all-status"), new RegExp(`^12 of 12 checks within their bounds on ${backend}`));

  const lessons = await page.$$eval("section.lesson", (ss) => ss.map((s) => {
    const part = (name) => s.querySelector(`[data-part=${name}]`);
    const pictures = [...part("picture").querySelectorAll("svg, canvas")];
    return {
      id: s.id,
      math: part("math").querySelectorAll("math").length,
      pictures: pictures.length,
      unlabelled: pictures.filter((p) => !p.getAttribute("aria-label")).length,
      ascii: part("picture").querySelectorAll("pre.diagram").length,
      sources: [...part("shader").querySelectorAll("figure")].map((f) => [f.dataset.lang, f.classList.contains("ran"), f.textContent]),
      check: [part("check").dataset.done, part("check").dataset.withinBound, part("check").querySelector(".check-result").textContent],
      timings: [...part("timing").querySelectorAll("tr[data-ms]")].map((tr) => Number(tr.dataset.ms)),
      exercise: [part("exercise").querySelector("input")?.labels.length, part("exercise").querySelector(".check-answer") !== null, part("exercise").querySelector("details.hint") !== null, part("exercise").querySelector(".show-solution") !== null],
    };
  }));
  const ran = backend === "webgpu" ? "wgsl" : "glsl";
  for (const l of lessons) {
    assert.ok(l.math >= 1, `${l.id}: no MathML`);
    assert.ok(l.pictures >= 1 && l.unlabelled === 0 && l.ascii === 0, `${l.id}: pictures ${JSON.stringify(l)}`);
    assert.deepEqual(l.sources.map(([lang]) => lang), ["wgsl", "glsl"], `${l.id}: WGSL and GLSL side by side`);
    const wgsl = l.sources[0][2];
    const glsl = l.sources[1][2];
    assert.match(wgsl, /@fragment|@compute|fn kernel/, `${l.id}: WGSL`);
    // The compute path has no GLSL twin; every other kernel does.
    if (!(l.id === "lesson-compute")) assert.match(glsl, /#version 300 es[\s\S]*void main\(\)/, `${l.id}: GLSL`);
    // The kernel marked as the one that ran is this backend's (the compute lesson's kernel
    // cannot run on WebGL2, whose check runs the fast fragment kernel: nothing is marked).
    const marked = l.sources.filter(([, isRan]) => isRan).map(([lang]) => lang);
    assert.deepEqual(marked, l.id === "lesson-compute" && backend === "webgl2" ? [] : [ran], `${l.id}: marked ${marked}`);
    assert.deepEqual(l.check.slice(0, 2), ["true", "true"], `${l.id}: ${l.check[2]}`);
    assert.match(l.check[2], /Tolerance/, `${l.id}: states its tolerance`);
    assert.ok(l.timings.length >= 2 && l.timings.every((ms) => ms >= 0 && Number.isFinite(ms)), `${l.id}: timings ${l.timings}`);
    assert.deepEqual(l.exercise, [1, true, true, true], `${l.id}: exercise parts`);
  }
  // The compute lesson ran the compute shader on WebGPU (no GLSL twin), the fast kernel on WebGL2.
  const compute = lessons.find((l) => l.id === "lesson-compute");
  if (backend === "webgpu") assert.match(compute.sources[0][2], /@compute @workgroup_size\(16, 16\)/);
  else assert.match(compute.check[2], /WebGL2 has no compute shaders/);
  assert.match(lessons[2].sources[0][2], /a_texel\(p \+ 1, y\) \* b\.y/, "lesson 3 shows the teaching kernel");
  assert.equal(await page.getAttribute("#float-heatmap", "data-drawn"), "true");
  // The reduction lesson counted gpu.sum's passes on its 100 x 100 (100 x 25 texels) matrix.
  assert.equal(await page.getAttribute("#lesson-reduce [data-part=check]", "data-passes"), String(reductionPasses(100, 25)));
  // The LCP lesson compared the wall's three solvers on one frame: six curves (each solver on
  // the GPU and in float64), and said how far each got.
  assert.equal(await page.locator("#lesson-lcp .solvers-picture svg polyline").count(), 6);
  assert.match(lessons.find((l) => l.id === "lesson-lcp").check[2], /accelerated Jacobi [\d.]+e-\d+, projected Jacobi [\d.]+e-\d+, Gauss-Seidel [\d.]+e-\d+ m\/s/);

  // Every exercise: a wrong answer refused, the right one (worked out above) accepted, the
  // solution on request.
  for (const [name, [right, wrong]] of Object.entries(ANSWERS)) {
    const box = page.locator(`[data-exercise=${name}]`);
    await box.locator("input").fill(wrong);
    await box.locator(".check-answer").click();
    assert.equal(await box.locator(".feedback").getAttribute("data-correct"), "false", `${name}: "${wrong}" accepted`);
    await box.locator("input").fill(right);
    await box.locator("input").press("Enter");
    assert.equal(await box.locator(".feedback").getAttribute("data-correct"), "true", `${name}: "${right}" refused`);
    assert.ok(await box.locator(".solution").isHidden());
    await box.locator(".show-solution").click();
    assert.ok(await box.locator(".solution").isVisible());
  }

  // Lesson 2's picker agrees with the exercise; lesson 3's stepper counts fetches and steps.
  for (const [d, v] of [["m", 13], ["n", 7], ["i", 10], ["j", 5]]) await page.fill(`#texel-${d}`, String(v));
  assert.deepEqual(await page.$eval("#texel-answer", (e) => [e.dataset.x, e.dataset.y, e.dataset.channel]), ["5", "2", "b"]);
  await page.fill("#step-k", "10");
  await page.waitForSelector("#step-sources[data-loaded]");
  assert.equal(await page.getAttribute("#step-status", "data-fetches"), String(2 * 5 + 1 + 2));
  await page.click("#step-next");
  await page.click("#step-next");
  assert.equal(await page.getAttribute("#step-status", "data-step"), "2");
  assert.ok(await page.isDisabled("#step-next"), "the tail is the last step");
  const lit = await page.$$eval("#step-sources pre", (ps) => ps.map((p) => [...p.querySelectorAll(".hl")].map((s) => s.textContent.trim())));
  for (const lines of lit) assert.ok(lines.some((t) => t.startsWith("if (p < k)")) && lines.some((t) => t.includes("acc += a_texel(p, y) * b.x;")), JSON.stringify(lit));

  // Controls are labelled, canvases and SVG pictures have text alternatives.
  const unlabelled = await page.$$eval("input, select, textarea, button", (els) => els.filter((e) => !(e.labels?.length || e.getAttribute("aria-label") || e.textContent.trim())).map((e) => e.id || e.outerHTML.slice(0, 60)));
  assert.deepEqual(unlabelled, []);
  const silent = await page.$$eval("canvas, main svg.figure-svg", (els) => els.filter((e) => e.offsetParent !== null && !e.getAttribute("aria-label")).map((e) => e.id || e.outerHTML.slice(0, 60)));
  assert.deepEqual(silent, []);

  // Presentation mode: one lesson per screen; the keyboard moves between them.
  await page.click("#present-toggle");
  const visible = () => page.$$eval("section.lesson", (ss) => ss.filter((s) => s.offsetParent !== null).map((s) => s.id));
  assert.deepEqual(await visible(), ["lesson-gpu"]);
  assert.ok(await page.isHidden("#toc"));
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("PageDown");
  assert.deepEqual(await visible(), ["lesson-shader"]);
  assert.ok(page.url().endsWith("#lesson-shader"));
  await page.keyboard.press("ArrowLeft");
  assert.deepEqual(await visible(), ["lesson-texture"]);
  assert.ok(await page.evaluate(() => parseFloat(getComputedStyle(document.body).fontSize) >= 20), "large type");
  await page.keyboard.press("Escape");
  assert.equal((await visible()).length, 12);

  // The handout: the lessons with their math, pictures and shaders; no labs, no buttons.
  await page.emulateMedia({ media: "print" });
  const print = await page.evaluate(() => ({
    lessons: [...document.querySelectorAll("section.lesson")].filter((s) => s.offsetParent !== null).length,
    math: [...document.querySelectorAll(".lesson math")].filter((m) => m.getClientRects().length).length,
    shaders: [...document.querySelectorAll(".lesson [data-part=shader] pre")].filter((p) => p.offsetParent !== null).length,
    labs: [...document.querySelectorAll(".lab, #explorer, #bench, #accuracy")].filter((s) => s.offsetParent !== null).length,
    buttons: [...document.querySelectorAll("button")].filter((b) => b.offsetParent !== null).length,
  }));
  assert.equal(print.lessons, 12);
  assert.ok(print.math >= 12 && print.shaders === 24, JSON.stringify(print));
  assert.equal(print.labs + print.buttons, 0, JSON.stringify(print));
  await page.emulateMedia({ media: "screen" });

  // A 390 px phone: nothing scrolls sideways, with every result shown.
  await page.setViewportSize({ width: 390, height: 844 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 390, "the page scrolls sideways at 390 px");
  await page.click("#present-toggle");
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 390, "presentation mode scrolls sideways at 390 px");

  assert.deepEqual(problems, []);
  await page.close();
});

testOnEachBackend(test, "?present opens presentation mode at the lesson of the address's anchor", async (backend) => {
  const { page, problems } = await openPage(shared.browser, shared.server, `?backend=${backend}&present#lesson-nmf`);
  await page.waitForSelector("#square-result-kernels[data-done]", { state: "attached", timeout: 60_000 });
  const shown = await page.$$eval("section.lesson", (ss) => ss.filter((s) => s.offsetParent !== null).map((s) => s.id));
  assert.deepEqual(shown, ["lesson-nmf"]);
  assert.equal(await page.textContent("#present-where"), "lesson 12 of 12");
  // A lesson shown in presentation mode runs its check once the GPU is free.
  await page.keyboard.press("ArrowLeft");
  await page.waitForSelector("#lesson-simd [data-part=check][data-done]", { timeout: 30_000 });
  assert.equal(await page.getAttribute("#lesson-simd [data-part=check]", "data-within-bound"), "true");
  await page.keyboard.press("Home");
  assert.equal(await page.textContent("#present-where"), "lesson 1 of 12");
  assert.deepEqual(problems, []);
  await page.close();
});

// Not per backend: it checks the exercises' answer parsing in Node, with no page and no GPU.
test("exercise answers are read as a person writes them, and near misses are refused", () => {
  const cases = {
    fragments: [["1024 fragments", true], ["1,024", true], ["256", false]],
    texel: [["(5, 2, b)", true], ["x=5 y=2 channel B", true], ["5 2 2", true], ["5, 2, r", false], ["5, 2", false]],
    bound: [["1.19e-4", true], ["0.000119", true], ["1.19e-7", false], ["2004", false]],
    workgroup: [["16,384", true], ["16 384", true]],
    ulp: [["6.1035e-5", true], ["2^-14", true], ["2^-13", false]],
    condition: [["48.4", true], ["47", false]],
    lcp: [["x = (2.5, 0)", true], ["(2.5; 0)", true], ["2.5", false], ["0, 2.5", false]],
    nmf: [["199 440", true], ["369664", false]],
  };
  for (const [name, list] of Object.entries(cases)) {
    for (const [text, right] of list) assert.equal(EXERCISES[name].check(text), right, `${name}: "${text}"`);
  }
});
