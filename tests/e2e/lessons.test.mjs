// End-to-end: the classroom as a teacher and a student meet it (issue 33), on each backend. The
// handout printed right after opening the page is complete (every lesson's own kernel, math,
// picture and exercise; no instruction to run anything); "The shader" of each lesson is its
// kernel, its own lines first, each language labelled with whether it ran here; every exercise
// accepts the answer of its own worked solution as the page writes it, and says why it refuses
// one; presentation mode opened by the address shows lesson 1's title and runs its check; the
// lesson list does not overlap itself; the page's text agrees with the code.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { openPage, sharedBrowser, testOnEachBackend } from "./browser.mjs";

const shared = sharedBrowser(before, after);

/** What each lesson's kernel's own WGSL lines hold (the lesson's kernel, not the prelude). */
const OWN_WGSL = {
  gpu: /f_add\(a_texel\(texel\.x, texel\.y\), b_texel\(texel\.x, texel\.y\)\)/,
  texture: /fn kernel\(texel: vec2<i32>\) -> vec4<f32> \{\s*return mask_padding\(texel\.y, a_texel\(texel\.x, texel\.y\)\);/,
  shader: /a_texel\(p \+ 1, y\) \* b\.y/,
  float: /a_texel\(p \+ 1, y\) \* b\.y/,
  targets: /-> array<vec4<f32>, \d>/,
  compute: /@compute @workgroup_size\(16, 16\)[\s\S]*var<workgroup>|var<workgroup>[\s\S]*@compute @workgroup_size\(16, 16\)/,
  reduce: /acc \+ a_texel\(x, y\)/,
  functions: /f_div\(f_mul\(a_texel\(texel\.x, texel\.y\), f_cos\(b_texel/,
  solvers: /array<vec4<f32>, 2>\(mask_padding\(texel\.y, f_add\(a_texel[\s\S]*f_sub\(c_texel/,
  lcp: /f_max\(f_add\(a_texel/,
  simd: /switch/,
  nmf: /f_div\(f_mul\(a_texel\(texel\.x, texel\.y\), b_texel\(texel\.x, texel\.y\)\), f_add\(c_texel/,
};
/** Lines of the shared prelude, the function library or an entry point: never among a kernel's own. */
const PRELUDE = /fn fs_main|fn vs_main|@binding\(0\)|fn p4\(|fn f_pow\(|void main\(|#version|uniform /;
/** Instructions that mean nothing on paper, and placeholders that wait for a run. */
const DEAD = /Run the check|Not run yet|each of its steps is timed here|The check draws|Loading the kernel|run the check/i;

/** Each lesson's shader part, as a reader sees it now. */
const shaderParts = (page) => page.$$eval("section.lesson", (ss) => ss.map((s) => {
  const part = s.querySelector("[data-part=shader]");
  const figures = [...part.querySelectorAll("figure")].map((f) => ({
    lang: f.dataset.lang,
    ran: f.dataset.ran,
    marked: f.classList.contains("ran"),
    caption: f.querySelector("figcaption").textContent,
    own: f.querySelector("pre").textContent,
    ownShown: f.querySelector("pre").getClientRects().length > 0,
    foldedShut: f.querySelector("details") ? !f.querySelector("details").open : null,
    folded: f.querySelector("details pre")?.textContent ?? null,
  }));
  return { lesson: s.dataset.lesson, heading: part.querySelector("h3").textContent, kernel: part.querySelector(".kernel-name")?.textContent, note: part.querySelector(".kernel-note")?.textContent ?? null, figures };
}));

/** Checks a lesson's shader part: its kernel's own lines first, the prelude folded shut. */
function ownLinesFirst(p) {
  const [wgsl, glsl] = p.figures;
  assert.deepEqual(p.figures.map((f) => f.lang), ["wgsl", "glsl"], p.lesson);
  assert.match(wgsl.own, OWN_WGSL[p.lesson], `${p.lesson}: the WGSL shown first is not the lesson's kernel:\n${wgsl.own.slice(0, 300)}`);
  for (const f of p.figures) {
    assert.doesNotMatch(f.own, PRELUDE, `${p.lesson} ${f.lang}: the prelude among the kernel's own lines`);
    assert.ok(f.ownShown, `${p.lesson} ${f.lang}: own lines not shown`);
  }
  assert.ok(wgsl.foldedShut === true && /fn fs_main|var out_tex|textureStore|@binding\(7\)/.test(wgsl.folded), `${p.lesson}: the prelude is not folded away`);
  if (p.lesson === "compute") assert.equal(glsl.folded, null, "a compute kernel has no GLSL twin");
  else {
    assert.match(glsl.own, /kernel\(ivec2 texel/, `${p.lesson}: GLSL`);
    assert.match(glsl.folded, /#version 300 es[\s\S]*void main\(\)/, `${p.lesson}: GLSL module`);
  }
}

testOnEachBackend(test, "the handout right after opening the page, the shader parts before and after the checks, the exercises' own answers", async (backend) => {
  const { page, problems } = await openPage(shared.browser, shared.server, `?backend=${backend}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForSelector("#square-result-kernels[data-done]", { state: "attached", timeout: 60_000 });

  // The handout now, before any check has run: every lesson complete, nothing dead.
  await page.emulateMedia({ media: "print" });
  const handout = await page.$$eval("section.lesson", (ss) => ss.map((s) => {
    const visible = (el) => el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
    const part = (name) => s.querySelector(`[data-part=${name}]`);
    return {
      lesson: s.dataset.lesson,
      shown: visible(s),
      math: [...part("math").querySelectorAll("math")].filter(visible).length,
      pictures: [...part("picture").querySelectorAll("svg, canvas")].filter((p) => visible(p) && p.getBoundingClientRect().width > 50).length,
      question: visible(part("exercise").querySelector(".question")),
      kernels: [...part("shader").querySelectorAll("pre.own")].filter(visible).map((p) => p.textContent),
      buttons: [...s.querySelectorAll("button")].filter(visible).length,
      text: s.innerText,
    };
  }));
  assert.equal(handout.length, 12);
  for (const l of handout) {
    assert.ok(l.shown && l.math >= 1 && l.pictures >= 1 && l.question, `${l.lesson} in print: ${JSON.stringify({ ...l, text: undefined, kernels: l.kernels.length })}`);
    assert.equal(l.kernels.length, 2, `${l.lesson}: its kernel's WGSL and GLSL in print`);
    assert.match(l.kernels[0], OWN_WGSL[l.lesson], `${l.lesson}: its own kernel in print`);
    assert.doesNotMatch(l.kernels[0], PRELUDE, `${l.lesson}: the prelude in print`);
    assert.equal(l.buttons, 0, `${l.lesson}: buttons in print`);
    assert.doesNotMatch(l.text, DEAD, `${l.lesson}: dead text in print`);
  }
  await page.emulateMedia({ media: "screen" });

  // The shader parts before the checks: the lesson's kernel, labelled for this backend.
  const ours = backend === "webgpu" ? "wgsl" : "glsl";
  const beforeRun = await shaderParts(page);
  for (const p of beforeRun) {
    ownLinesFirst(p);
    assert.equal(p.heading, "The shader", p.lesson);
    assert.ok(p.figures.every((f) => f.ran === "false"), `${p.lesson}: marked as run before its check`);
  }

  // The lesson list: no item over another at 1280 px (two columns) and at 390 px.
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const boxes = await page.$$eval("#toc ol li", (lis) => lis.map((li) => {
      // An item's extent: its text's line boxes, and the number beside it (in the list's gutter).
      const range = document.createRange();
      range.selectNodeContents(li);
      const lines = [...range.getClientRects()];
      const gutter = parseFloat(getComputedStyle(li.parentElement).paddingLeft);
      return { left: li.getBoundingClientRect().left - gutter, right: Math.max(...lines.map((r) => r.right)), top: Math.min(...lines.map((r) => r.top)), bottom: Math.max(...lines.map((r) => r.bottom)) };
    }));
    assert.equal(boxes.length, 12);
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) {
        const overlap = a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        assert.ok(!overlap, `at ${width} px, lesson list items overlap: ${JSON.stringify([a, b])}`);
      }
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  // Every exercise takes its worked solution's answer as the page writes it, and says why not.
  const answers = await page.$$eval("[data-exercise]", (boxes) => boxes.map((b) => [b.dataset.exercise, b.querySelector(".solution .answer").textContent]));
  assert.equal(answers.length, 12);
  for (const [name, answer] of answers) {
    const box = page.locator(`[data-exercise=${name}]`);
    await box.locator("input").fill(answer);
    await box.locator(".check-answer").click();
    assert.equal(await box.locator(".feedback").getAttribute("data-correct"), "true", `${name}: its own solution “${answer}” refused: ${await box.locator(".feedback").textContent()}`);
  }
  for (const [name, text, why] of [["bound", "1.19 × 10⁻⁷", /^Not accepted: off by a factor of about 10\^-3 \(check the exponent\)\.$/], ["condition", "−48.37", /^Not accepted: wrong sign/], ["fragments", "one thousand", /^Not accepted: not a number/], ["ulp", "6.2e-5", /^Not accepted: close but outside the tolerance/]]) {
    const box = page.locator(`[data-exercise=${name}]`);
    await box.locator("input").fill(text);
    await box.locator("input").press("Enter");
    assert.match(await box.locator(".feedback").textContent(), why, `${name}: “${text}”`);
  }

  // Every check: then each shader part shows the kernel that ran, labelled by what ran here.
  await page.click("#run-all-checks");
  await page.waitForSelector("#run-all-status[data-done]", { timeout: 120_000 });
  assert.match(await page.textContent("#run-all-status"), /^12 of 12 checks within their bounds/);
  const afterRun = await shaderParts(page);
  for (const p of afterRun) {
    ownLinesFirst(p);
    const [wgsl, glsl] = p.figures;
    const [here, twin] = ours === "wgsl" ? [wgsl, glsl] : [glsl, wgsl];
    if (p.lesson === "compute") {
      assert.match(glsl.caption, /^GLSL ES 3\.00 \(WebGL2\): none: a compute shader has no GLSL twin$/);
      if (backend === "webgl2") {
        assert.match(wgsl.caption, /^WGSL \(WebGPU\): not run here: WebGL2 has no compute shaders$/);
        assert.ok(!wgsl.marked && !glsl.marked, "nothing marked as run: the compute kernel cannot run on WebGL2");
        assert.match(p.note, /WebGL2 has no compute shaders/);
        assert.equal(p.heading, "The shader");
        continue;
      }
      assert.match(wgsl.caption, /^WGSL \(WebGPU\): ran here$/);
      assert.match(p.kernel, /matmul_tiled/);
      continue;
    }
    assert.equal(p.heading, "The shader that ran", p.lesson);
    assert.match(here.caption, /: ran here$/, `${p.lesson}: ${here.caption}`);
    assert.ok(here.marked && !twin.marked, `${p.lesson}: the ${ours} column alone is marked as run`);
    assert.match(twin.caption, /: its twin, not run here$/, `${p.lesson}: ${twin.caption}`);
  }
  // What each lesson showed before its check is the kernel its check ran (where the check ran
  // it last): the same own lines, but for the kernels the GPU's limits shape (render targets,
  // chunk depth) and lesson 11's, generated for the order the check anneals.
  for (const [k, p] of afterRun.entries()) {
    if (["targets", "compute", "simd"].includes(p.lesson)) continue;
    assert.equal(p.figures[0].own, beforeRun[k].figures[0].own, `${p.lesson}: the kernel shown before the check is not the one it ran`);
  }

  // The handout after the checks: their results are in it.
  await page.emulateMedia({ media: "print" });
  const results = await page.$$eval("section.lesson", (ss) => ss.map((s) => [s.dataset.lesson, s.querySelector(".check-result").getClientRects().length > 0 && /Tolerance/.test(s.querySelector(".check-result").innerText), s.querySelector("[data-part=timing] table")?.getClientRects().length > 0]));
  for (const [lesson, check, timing] of results) assert.ok(check && timing, `${lesson}: results missing from the handout`);
  assert.deepEqual(problems, []);
  await page.close();
}, { timeout: 240_000 });

testOnEachBackend(test, "?present shows lesson 1 with its title in view and runs its check, then the next one's", async (backend) => {
  const { page, problems } = await openPage(shared.browser, shared.server, `?backend=${backend}&present`);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.waitForSelector("#lesson-gpu [data-part=check][data-done]", { timeout: 60_000 });
  const inView = () => page.evaluate(() => {
    const shown = document.querySelector("section.lesson.current");
    const title = shown.querySelector("h2").getBoundingClientRect();
    const bar = document.getElementById("present-bar").getBoundingClientRect();
    return { lesson: shown.id, below: title.top >= bar.bottom - 0.5, inside: title.bottom <= innerHeight, title: title.toJSON(), bar: bar.toJSON() };
  });
  const first = await inView();
  assert.equal(first.lesson, "lesson-gpu");
  assert.ok(first.below && first.inside, `lesson 1's title under the bar or off screen: ${JSON.stringify(first)}`);
  assert.equal(await page.getAttribute("#lesson-gpu [data-part=check]", "data-within-bound"), "true");
  await page.keyboard.press("ArrowRight");
  await page.waitForSelector("#lesson-texture [data-part=check][data-done]", { timeout: 30_000 });
  const second = await inView();
  assert.ok(second.lesson === "lesson-texture" && second.below && second.inside, JSON.stringify(second));
  assert.deepEqual(problems, []);
  await page.close();
}, { timeout: 120_000 });

test("the page's text agrees with the code: the wall's ball", async () => {
  const [html, wall] = await Promise.all([readFile(new URL("../../index.html", import.meta.url), "utf8"), readFile(new URL("../../src/physics/wall.rs", import.meta.url), "utf8")]);
  const [, radius, mass, speed] = wall.match(/pub const BALL: \(f64, f64, f64\) = \(([\d.]+), ([\d.]+), ([\d.]+)\);/);
  assert.match(html, new RegExp(`throw the ball \\(${Number(radius)} m, ${Number(mass)} kg,\\s+${Number(speed)} m/s\\)`));
  assert.doesNotMatch(html, /15 m\/s/);
});
