// The tutorial's frame: the table of contents, the exercises (answer box, Check, hint, solution),
// presentation mode (one lesson per screen, arrow keys) and the lessons' GPU checks (each fills
// its lesson's check, timing and shader parts). The lessons' pictures live in pictures.js,
// texture.js and stepper.js; the checks in checks.js and checks-apps.js; the answers in
// exercises.js. Nothing here needs the GPU but the checks.

import { EXERCISES } from "./exercises.js";
import { CHECKS } from "./checks.js";
import { drawPictures } from "./pictures.js";
import { initTexturePicture } from "./texture.js";
import { initStepper } from "./stepper.js";

const $ = (id) => document.getElementById(id);
const lessons = () => [...document.querySelectorAll("section.lesson")];

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

/**
 * Wires every lesson's "Run the check" button, and the "run every check" button, to the lesson's
 * check on `gpu`; each runs inside `guarded` (app.js: one run at a time, errors shown in place).
 */
export function initChecks(gpu, texla, guarded) {
  const runOne = async (section) => {
    const name = section.dataset.lesson;
    const part = section.querySelector("[data-part=check]");
    const out = part.querySelector(".check-result");
    delete part.dataset.done;
    out.textContent = "running on your GPU…";
    const r = await CHECKS[name](gpu, texla, section);
    part.dataset.withinBound = String(r.within);
    if (r.passes !== undefined) part.dataset.passes = String(r.passes);
    part.dataset.done = "true";
    out.replaceChildren(...r.lines.map((line, k) => Object.assign(document.createElement("p"), {
      textContent: line,
      className: k === r.lines.length - 1 ? (r.within ? "ok" : "bad") : "",
    })));
    showTiming(section.querySelector("[data-part=timing]"), r.timing, gpu.backend);
    showShaders(section.querySelector("[data-part=shader] .shaders"), r.shaders, gpu.backend);
  };
  for (const section of lessons()) {
    const button = section.querySelector(".run-check");
    const out = section.querySelector(".check-result");
    button.addEventListener("click", () => guarded(out, () => runOne(section)));
    // Presentation mode runs a lesson's check when it first comes on screen (unless busy).
    section.addEventListener("lesson-shown", () => !section.querySelector("[data-part=check]").dataset.done && !button.disabled && button.click());
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

/** Shows a kernel's WGSL and GLSL side by side, marking the one this backend ran. */
export function showShaders(box, shaders, backend) {
  if (!shaders) return;
  const ran = backend === "webgpu" ? "wgsl" : "glsl";
  const column = (lang, title, source) => {
    const fig = document.createElement("figure");
    fig.className = `shader-source ${lang === ran ? "ran" : ""}`;
    fig.dataset.lang = lang;
    const cap = document.createElement("figcaption");
    cap.append(`${title}${lang === ran ? ": ran here" : ": its twin, for the other backend"}`, Object.assign(document.createElement("span"), { className: "scroll-note", textContent: " (scroll up for the shared prelude)" }));
    const pre = document.createElement("pre");
    pre.className = "shader";
    pre.tabIndex = 0;
    pre.setAttribute("aria-label", `${title} source`);
    if (source) {
      // The prelude (helpers shared by every kernel) comes first; the kernel is marked, shown
      // from its start on screen and alone in the handout.
      const lines = source.split("\n");
      let at = lines.findIndex((l) => !l.trimStart().startsWith("//") && /\bkernel\w*\s*\(|@compute/.test(l));
      while (at > 0 && lines[at - 1].trimStart().startsWith("//")) at--;
      at = Math.max(0, at);
      pre.append(
        Object.assign(document.createElement("span"), { className: "prelude", textContent: lines.slice(0, at).join("\n") + (at ? "\n" : "") }),
        Object.assign(document.createElement("span"), { className: "kernel", textContent: lines.slice(at).join("\n") }),
      );
    } else {
      pre.textContent = "none: a compute shader has no GLSL ES 3.00 twin (WebGL2 has no compute shaders)";
    }
    fig.append(cap, pre);
    return fig;
  };
  const name = Object.assign(document.createElement("p"), { className: "kernel-name", textContent: `Kernel: ${shaders.name}` });
  box.replaceChildren(name, column("wgsl", "WGSL (WebGPU)", shaders.wgsl), column("glsl", "GLSL ES 3.00 (WebGL2)", shaders.glsl));
  requestAnimationFrame(() => box.querySelectorAll("pre").forEach((pre) => {
    const kernel = pre.querySelector(".kernel");
    if (kernel) pre.scrollTop += kernel.getBoundingClientRect().top - pre.getBoundingClientRect().top - 8;
  }));
  box.dataset.kernel = shaders.name ?? "";
  box.closest("[data-part=shader]").dataset.done = "true";
}
