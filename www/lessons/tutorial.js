// The tutorial's frame: the table of contents, the exercises (answer box, Check, hint, solution),
// presentation mode (one lesson per screen, arrow keys), each lesson's kernel (its shader part,
// from texla's sources before anything runs) and the lessons' GPU checks (each fills its
// lesson's check, timing and shader parts). The lessons' pictures live in pictures.js,
// texture.js and stepper.js; the checks in checks.js and checks-apps.js; the kernels in
// kernels.js; the answers in exercises.js. Nothing here needs the GPU but the checks.

import { EXERCISES } from "./exercises.js";
import { CHECKS } from "./checks.js";
import { LESSON_KERNELS } from "./kernels.js";
import { simulatedCg } from "./checks-apps.js";
import { drawPictures, drawResiduals } from "./pictures.js";
import { initTexturePicture } from "./texture.js";
import { initStepper } from "./stepper.js";

const $ = (id) => document.getElementById(id);
const lessons = () => [...document.querySelectorAll("section.lesson")];
/** Each lesson's kernel sources (Gpgpu.kernelSources), by lesson name, once texla is loaded. */
const kernels = new Map();
const present = () => document.body.classList.contains("present");

/** Sets up everything that works without a GPU: exercises, pictures, presentation mode. */
export function initTutorial() {
  for (const box of document.querySelectorAll("[data-part=exercise]")) initExercise(box);
  // Each lesson ends with a way on: the next lesson, and back to the contents.
  lessons().forEach((section, k, all) => {
    const nav = document.createElement("p");
    nav.className = "lesson-nav";
    const link = (href, text) => Object.assign(document.createElement("a"), { href, textContent: text });
    if (all[k + 1]) nav.append(link(`#${all[k + 1].id}`, `Next: ${k + 2}. ${all[k + 1].querySelector("h2").lastChild.textContent.trim()}`), " · ");
    nav.append(link("#toc", "Contents"));
    section.append(nav);
  });
  drawPictures();
  initTexturePicture();
  initStepper();
  initPresentation();
}

/** One exercise: its answer is read from the box and judged by EXERCISES[name].judge, which
 * says why an answer is not accepted (not a number, wrong unit, wrong sign, off by a factor). */
function initExercise(box) {
  const name = box.dataset.exercise;
  const exercise = EXERCISES[name];
  if (!exercise) throw new Error(`no exercise named ${name}`);
  const input = box.querySelector("input");
  const feedback = box.querySelector(".feedback");
  const judge = () => {
    const text = input.value.trim();
    if (!text) {
      feedback.textContent = "Type an answer first.";
      delete feedback.dataset.correct;
      return;
    }
    const { right, reason } = exercise.judge(text);
    feedback.dataset.correct = String(right);
    feedback.className = `feedback ${right ? "ok" : "bad"}`;
    feedback.textContent = right ? `Right: ${exercise.why}` : `Not accepted: ${reason}.`;
  };
  box.querySelector(".check-answer").addEventListener("click", judge);
  input.addEventListener("keydown", (e) => e.key === "Enter" && (e.preventDefault(), judge()));
  const solution = box.querySelector(".solution");
  const show = box.querySelector(".show-solution");
  show.addEventListener("click", () => {
    solution.hidden = !solution.hidden;
    show.setAttribute("aria-expanded", String(!solution.hidden));
    show.textContent = solution.hidden ? "Show solution" : "Hide solution";
  });
}

/** Presentation mode: one lesson per screen, large type; ←/→, PageUp/PageDown, Home/End, Esc. */
function initPresentation() {
  const button = $("present-toggle");
  const bar = $("present-bar");
  let index = 0;
  const show = (i) => {
    const all = lessons();
    index = Math.max(0, Math.min(all.length - 1, i));
    all.forEach((s, k) => s.classList.toggle("current", k === index));
    $("present-where").textContent = `lesson ${index + 1} of ${all.length}`;
    history.replaceState(null, "", `${location.search}#${all[index].id}`);
    all[index].dispatchEvent(new Event("lesson-shown"));
    all[index].querySelector("h2").focus({ preventScroll: true });
    window.scrollTo(0, 0);
  };
  const enter = () => {
    document.body.classList.add("present");
    bar.hidden = false;
    button.setAttribute("aria-pressed", "true");
    const at = lessons().findIndex((s) => `#${s.id}` === location.hash);
    show(at < 0 ? 0 : at);
  };
  const leave = () => {
    document.body.classList.remove("present");
    bar.hidden = true;
    button.setAttribute("aria-pressed", "false");
    lessons()[index].scrollIntoView();
  };
  button.addEventListener("click", () => (document.body.classList.contains("present") ? leave() : enter()));
  $("present-prev").addEventListener("click", () => show(index - 1));
  $("present-next").addEventListener("click", () => show(index + 1));
  $("present-exit").addEventListener("click", leave);
  document.addEventListener("keydown", (e) => {
    if (!document.body.classList.contains("present") || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest?.("input, select, textarea")) return;
    const moves = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 };
    if (e.key in moves) show(index + moves[e.key]);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(lessons().length - 1);
    else if (e.key === "Escape") leave();
    else return;
    e.preventDefault();
  });
  // A table-of-contents link in presentation mode shows that lesson.
  for (const link of document.querySelectorAll("#toc a[href^='#lesson-']")) {
    link.addEventListener("click", (e) => {
      if (!document.body.classList.contains("present")) return;
      e.preventDefault();
      show(lessons().findIndex((s) => `#${s.id}` === link.getAttribute("href")));
    });
  }
  if (new URLSearchParams(location.search).has("present")) enter();
}

/** In presentation mode, runs the shown lesson's check: app.js calls this once its start-up
 * work is done (a lesson shown on arrival was shown before the GPU was open). */
export function checkShownLesson() {
  if (present()) document.querySelector("section.lesson.current")?.dispatchEvent(new Event("lesson-shown"));
}

/**
 * Shows each lesson's kernel from texla's own sources, without a GPU (so that the page and its
 * printed handout have every lesson's kernel before any check has run), and lesson 9's picture
 * from CG in JavaScript (float32 simulated) until its check draws the GPU's.
 */
export function initKernels(texla) {
  for (const section of lessons()) {
    const name = section.dataset.lesson;
    try {
      kernels.set(name, LESSON_KERNELS[name].sources(texla));
      showShaders(section, kernels.get(name));
    } catch (e) {
      section.querySelector("[data-part=shader] .shaders").textContent = `The kernel's sources could not be built: ${e.message ?? e}`;
    }
  }
  const picture = document.querySelector("#lesson-solvers [data-part=picture] .picture");
  try {
    const cg = simulatedCg(texla);
    drawResiduals(picture, cg.f32.residuals, cg.f64.residuals, cg.true32, "float32, each operation rounded in JavaScript");
  } catch (e) {
    picture.textContent = `The residual curves could not be drawn: ${e.message ?? e}`;
  }
}

/**
 * Wires every lesson's "Run the check" button, and the "run every check" button, to the lesson's
 * check on `gpu`; each runs inside `guarded` (app.js: one run at a time, errors shown in place).
 */
export function initChecks(gpu, texla, guarded) {
  for (const section of lessons()) if (kernels.has(section.dataset.lesson)) showShaders(section, kernels.get(section.dataset.lesson), { backend: gpu.backend });
  const runOne = async (section) => {
    const name = section.dataset.lesson;
    const part = section.querySelector("[data-part=check]");
    const out = part.querySelector(".check-result");
    delete part.dataset.done;
    out.textContent = "running on your GPU…";
    part.dataset.running = "true";
    let r;
    try {
      r = await CHECKS[name](gpu, texla, section);
    } finally {
      delete part.dataset.running;
    }
    part.dataset.withinBound = String(r.within);
    if (r.passes !== undefined) part.dataset.passes = String(r.passes);
    part.dataset.done = "true";
    out.replaceChildren(...r.lines.map((line, k) => Object.assign(document.createElement("p"), {
      textContent: line,
      className: k === r.lines.length - 1 ? (r.within ? "ok" : "bad") : "",
    })));
    showTiming(section.querySelector("[data-part=timing]"), r.timing, gpu.backend);
    const shown = r.shaders ?? kernels.get(name);
    if (shown) showShaders(section, shown, { backend: gpu.backend, ran: r.kernelRan !== false, title: r.title });
    section.querySelector("[data-part=shader]").dataset.done = "true";
  };
  for (const section of lessons()) {
    const button = section.querySelector(".run-check");
    const out = section.querySelector(".check-result");
    button.addEventListener("click", () => guarded(out, () => runOne(section)));
    // Presentation mode runs a lesson's check when it first comes on screen, or once the GPU is
    // free if another run holds it, unless the lesson has gone from the screen by then.
    const check = section.querySelector("[data-part=check]");
    const runWhenFree = () => {
      if (!present() || !section.classList.contains("current") || check.dataset.done || check.dataset.running) return;
      if (button.disabled) setTimeout(runWhenFree, 200);
      else button.click();
    };
    section.addEventListener("lesson-shown", runWhenFree);
  }
  $("run-all-checks").addEventListener("click", () => guarded($("run-all-status"), async () => {
    const all = lessons();
    for (const [k, section] of all.entries()) {
      $("run-all-status").textContent = `checking lesson ${k + 1} of ${all.length}…`;
      try {
        await runOne(section);
      } catch (e) {
        section.querySelector(".check-result").replaceChildren(Object.assign(document.createElement("div"), { className: "error", textContent: e.message ?? String(e) }));
      }
    }
    const passed = document.querySelectorAll("[data-part=check][data-within-bound=true]").length;
    $("run-all-status").textContent = `${passed} of ${all.length} checks within their bounds on ${gpu.backend}.`;
    $("run-all-status").dataset.done = "true";
  }));
}

/** Fills a timing part from [label, milliseconds] rows. */
function showTiming(part, rows, backend) {
  const table = document.createElement("table");
  table.className = "numbers timing";
  table.createCaption().textContent = `on your GPU (${backend === "webgpu" ? "WebGPU" : "WebGL2"}); GPU passes after one warm-up run`;
  for (const [label, ms] of rows) {
    const tr = table.insertRow();
    tr.dataset.ms = String(ms);
    tr.insertCell().textContent = label;
    tr.insertCell().textContent = Number.isFinite(ms) ? `${ms.toFixed(ms < 10 ? 2 : 1)} ms` : "–";
  }
  part.querySelector(".timing-result").replaceChildren(table);
  part.dataset.done = "true";
}

const LANGUAGES = [["wgsl", "WGSL (WebGPU)", "webgpu"], ["glsl", "GLSL ES 3.00 (WebGL2)", "webgl2"]];

/**
 * Shows a lesson's kernel (KernelSources) in its shader part: WGSL and GLSL side by side, each
 * its kernel's own lines first and the rest of its module (the prelude every kernel shares, the
 * inputs' accessors, a helper library, the entry point) folded below. Each language is labelled
 * with whether it ran on `backend` (WGSL on WebGPU, GLSL on WebGL2; the other is its twin, not
 * run here); `ran` once the lesson's check has run it; a compute kernel has no GLSL twin, and on
 * WebGL2 the part says it cannot run there.
 */
export function showShaders(section, sources, { backend = null, ran = false, title } = {}) {
  const spec = LESSON_KERNELS[section.dataset.lesson] ?? {};
  const part = section.querySelector("[data-part=shader]");
  const box = part.querySelector(".shaders");
  const cannot = spec.computeOnly && backend === "webgl2";
  const column = ([lang, label, runsOn]) => {
    const fig = document.createElement("figure");
    const [full, own] = [sources[lang], sources.own?.[lang]];
    const here = backend === runsOn;
    const didRun = ran && here && full !== null;
    fig.className = `shader-source${didRun ? " ran" : ""}${full === null ? " none" : ""}`;
    fig.dataset.lang = lang;
    fig.dataset.ran = String(didRun);
    const state = full === null ? "none: a compute shader has no GLSL twin"
      : !backend ? ""
      : here ? (ran ? "ran here" : "this backend's: the lesson's check runs it")
      : cannot ? "not run here: WebGL2 has no compute shaders"
      : "its twin, not run here";
    const pre = Object.assign(document.createElement("pre"), { className: "shader own", tabIndex: 0 });
    pre.setAttribute("aria-label", `${label} source: the kernel's own lines`);
    fig.append(Object.assign(document.createElement("figcaption"), { textContent: state ? `${label}: ${state}` : label }), pre);
    if (full === null) {
      pre.textContent = "WebGL2 has no compute shaders, so this kernel has no GLSL ES 3.00 twin.";
      return fig;
    }
    pre.textContent = own.replace(/\n+$/, "");
    const at = full.indexOf(own);
    const rest = at < 0 ? full : `${full.slice(0, at)}// ┄┄ the kernel's own lines, shown above ┄┄\n${full.slice(at + own.length)}`;
    const folded = Object.assign(document.createElement("details"), { className: "prelude" });
    const lines = rest.split("\n").length - 1;
    folded.append(Object.assign(document.createElement("summary"), { textContent: `The shared prelude around them: ${lines} more lines (uniforms, texel fetches, helpers, the entry point)` }),
      Object.assign(document.createElement("pre"), { className: "shader", textContent: rest, tabIndex: 0 }));
    fig.append(folded);
    return fig;
  };
  const heading = Object.assign(document.createElement("p"), { className: "kernel-name", textContent: `Kernel: ${title ?? spec.title ?? sources.name}` });
  const notes = cannot ? [Object.assign(document.createElement("p"), { className: "kernel-note", textContent: "WebGL2 has no compute shaders: this kernel does not run here, and this lesson's check ran the fast fragment kernel of lesson 5 instead." })] : [];
  box.replaceChildren(heading, ...notes, ...LANGUAGES.map(column));
  box.dataset.kernel = sources.name ?? "";
  part.querySelector("h3").textContent = ran && !cannot ? "The shader that ran" : "The shader";
  part.dataset.source = "true";
}
