// The page: opens a GPU (WebGPU, else WebGL2), squares and multiplies matrices on it, reads the
// results back and compares them with JavaScript float64 math. `?backend=webgpu|webgl2|auto`
// picks the backend; `?bench=products|functions|matvec|solvers|lcp` runs a benchmark on load
// (`&sizes=64,128` to choose sizes; `&n=` the order of the solver benchmark's dense problems).
// This file is the start-up, the capability panel and the wiring of each section's form to its
// module (solvers.js, bench-tables.js, products.js, ...); float64 JavaScript lives in reference/.
// The page is a tutorial of twelve lessons (lessons/tutorial.js: exercises, pictures, presentation
// mode, each lesson's check); the sections above become its labs. `?present` opens presentation mode.

import { product } from "./products.js";
import { initWall } from "./wall.js";
import { initNmf } from "./nmf.js";
import { initLinear } from "./linear.js";
import { explore, explorerKernel, OPERATIONS } from "./explorer.js";
import { kernelLab, initKernelLabs } from "./kernel-lab.js";
import { initDownloads } from "./download.js";
import { measureAccuracy, ULP_FLAG } from "./accuracy.js";
import { MATVEC_SIZES } from "./benchmark/bench.js";
import { runSolver } from "./solvers.js";
import { floatFloatLesson } from "./float-float.js";
import { runBench } from "./benchmark/bench-tables.js";
import { number, whole, positive } from "./fields.js";
import { initTutorial, initKernels, initChecks, checkShownLesson } from "./lessons/tutorial.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

let gpu = null;
let busy = false;
/** What runs after a result while the buttons are back (see `guarded`): { stop (an
 * AbortController), done (a promise) }. */
let aside = null;
/** The explorer's kernel lab (kernel-lab.js): the body of the operation that last ran. */
let explorerLab = null;
/** The sections that have shown a result, by name: each runs again after a lost GPU is back. */
const reruns = new Map();

/** Runs a section's `run` and remembers it for after a lost GPU (see `reruns`). */
function shown(name, run) {
  reruns.set(name, run);
  return run();
}

/**
 * Fills an alert at the top of the page (#fatal, #gpu-lost): a headline in plain words, what to
 * do (items of text and links), the technical reason in a details line, and buttons.
 */
function alertAt(box, { headline, todo = [], technical = "", buttons = [] }) {
  const make = (tag, props = {}, ...children) => {
    const e = Object.assign(document.createElement(tag), props);
    e.append(...children);
    return e;
  };
  const parts = [make("p", { className: "headline", textContent: headline })];
  if (todo.length) parts.push(make("ul", {}, ...todo.map((item) => make("li", {}, ...[item].flat()))));
  if (technical) parts.push(make("details", {}, make("summary", { textContent: "Technical reason" }), make("pre", { textContent: technical })));
  if (buttons.length) parts.push(make("p", {}, ...buttons));
  box.replaceChildren(...parts);
  box.hidden = false;
}

function fatal(what) {
  alertAt($("fatal"), what);
  document.body.dataset.state = "error";
}

/** A link to this page with `backend` instead of the one asked for. */
function backendLink(backend, text) {
  const query = new URLSearchParams(location.search);
  query.set("backend", backend);
  return Object.assign(document.createElement("a"), { href: `?${query}`, textContent: text });
}

async function start() {
  initTutorial();
  initDownloads();
  const choice = params.get("backend") ?? "auto";
  $("backend-select").value = ["auto", "webgpu", "webgl2"].includes(choice) ? choice : "auto";
  $("backend-select").addEventListener("change", (e) => {
    params.set("backend", e.target.value);
    location.search = params.toString();
  });
  let texla;
  try {
    texla = await import("../pkg/texla.js");
    await texla.default();
  } catch (e) {
    $("cap-backend").textContent = "none";
    fatal({
      headline: "This page could not start: its program (texla, a WebAssembly module) did not load.",
      todo: ["Reload the page.", "If you serve the page yourself, build it first with the README's first command, which also serves it."],
      technical: `The texla module could not be loaded (${e.message}).`,
    });
    return;
  }
  initKernels(texla);
  try {
    gpu = await texla.Gpgpu.create(choice);
  } catch (e) {
    $("cap-backend").textContent = "none";
    const named = { webgpu: "WebGPU", webgl2: "WebGL2" }[choice];
    fatal({
      headline: named
        ? `This page cannot compute here: ${named}, which the address asks for, is not available in this browser.`
        : "This page cannot compute here: your browser gave it no GPU (neither WebGPU nor WebGL2).",
      todo: [
        ...(named ? [["Open the page ", backendLink("auto", "without naming a backend"), `, so that it uses whichever of WebGPU and WebGL2 works.`]] : []),
        "Switch on hardware (graphics) acceleration in your browser's settings, then reload.",
        "Use a recent Chrome, Edge, Firefox or Safari: all have WebGL2, most have WebGPU.",
        "On Linux, Chromium offers WebGPU only when started with --enable-unsafe-webgpu, and WebGL2 only with a working graphics driver.",
      ],
      technical: `No GPU backend could be started.\n${e.message ?? e}`,
    });
    return;
  }
  const caps = gpu.capabilities();
  $("cap-backend").textContent = caps.backend === "webgpu" ? "WebGPU" : "WebGL2";
  $("cap-backend").dataset.backend = caps.backend;
  $("cap-adapter").textContent = caps.adapter;
  $("cap-max").textContent = `${caps.maxTextureSize} texels: up to ${4 * caps.maxTextureSize} rows and ${caps.maxTextureSize} columns`;
  $("cap-reason").textContent = caps.reason;
  $("cap-products").textContent = `matmul and square run the ${caps.matmulKernel} kernel: ${caps.matmulReason}`;
  $("cap-products").dataset.kernel = caps.matmulKernel;
  // The precision probe of create: every float64 check on this page assumes IEEE float32.
  const f32 = caps.float32;
  $("cap-float32").textContent = f32.ieee
    ? `IEEE 754 float32: all ${f32.checks} checks of the probe passed (rounding at 2^24, exact integer products, NaN and infinity, 24 stored bits)`
    : `NOT IEEE float32: this GPU failed ${f32.failed.length} of ${f32.checks} checks, so the float64 comparisons below may fail: ${f32.failed.join("; ")}`;
  $("cap-float32").classList.toggle("error", !f32.ieee);
  $("cap-float32").dataset.ieee = String(f32.ieee);
  document.body.dataset.backend = caps.backend;
  showMemory();
  // No kernel is compiled ahead here: each section builds the shaders it runs first, says so
  // while it does, and times only the runs after (a warm-up of the default product kernel held
  // WebGPU's first result 3 s here, compiling a kernel the first panel does not run).

  // When the GPU goes away (a reset, a driver crash, the button), say so at the top in plain
  // words and bring the same Gpgpu back: matrices with a copy on the CPU come back with it, the
  // wall gets its new canvas, and every section that had shown a result runs again.
  let wall = null;
  try {
    wall = initWall(gpu);
  } catch (e) {
    $("wall-error").textContent = `The wall could not start: ${e.message ?? e}`;
    $("wall-error").hidden = false;
  }
  // The wall's frames share the GPU: starting them ends the kernels table's timing.
  for (const id of ["wall-run", "wall-step"]) $(id).addEventListener("click", stopAside);
  const backendName = caps.backend === "webgpu" ? "WebGPU" : "WebGL2";
  let restoring = false;
  const watchLoss = async () => {
    const why = gpu.lost();
    if (!why || restoring) return;
    restoring = true;
    const banner = $("gpu-lost");
    const say = (state, what) => {
      banner.dataset.state = state;
      banner.classList.toggle("error", state !== "restored");
      alertAt(banner, what);
    };
    const button = (textContent, onclick) => {
      const b = Object.assign(document.createElement("button"), { type: "button", textContent, onclick });
      b.dataset.free = "";
      return b;
    };
    say("restoring", { headline: "Your GPU stopped for a moment (the browser or its driver reset it). The page is bringing it back: wait a few seconds…", technical: `The GPU went away (${why}).` });
    $("cap-backend").textContent = `${backendName} (lost)`;
    for (let attempt = 1; ; attempt++) {
      try {
        const { restored, lost } = await gpu.restore();
        $("cap-backend").textContent = backendName;
        wall?.restored();
        say("restored", {
          headline: "Your GPU stopped for a moment and is back: the results on this page were computed again. Nothing for you to do.",
          technical: `The GPU went away (${why}) and came back: ${restored} ${restored === 1 ? "matrix" : "matrices"} restored from ${restored === 1 ? "its copy" : "their copies"}, ${lost} lost with it. ` +
            `The sections that had shown a result ran again (${[...reruns.keys()].join(", ") || "none"}).`,
          buttons: [button("Dismiss", () => (banner.hidden = true))],
        });
        for (const rerun of reruns.values()) {
          await rerun();
          await aside?.done;
        }
        break;
      } catch (e) {
        if (attempt === 5) {
          say("failed", {
            headline: "Your GPU stopped and did not come back. Reload the page to start again.",
            todo: ["If it happens again: close other tabs that use the GPU (games, videos, 3D pages), or update your graphics driver."],
            technical: `The GPU went away (${why}) and did not come back (${e.message ?? e}).`,
            buttons: [button("Reload the page", () => location.reload())],
          });
          break;
        }
        say("restoring", { headline: `Your GPU stopped for a moment. Bringing it back did not work yet; the page tries again in ${attempt} s…`, technical: `The GPU went away (${why}). Bringing it back failed (${e.message ?? e}).` });
        await new Promise((r) => setTimeout(r, 1000 * attempt));
      }
    }
    restoring = false;
    showMemory();
  };
  setInterval(watchLoss, 1000);
  $("lose-gpu").addEventListener("click", () => {
    gpu.loseContext();
    watchLoss();
  });

  initChecks(gpu, texla, guarded);
  initKernelLabs(texla, gpu, guarded).catch((e) => $("lab-multiply").replaceChildren(Object.assign(document.createElement("div"), { className: "error", textContent: `The kernel labs could not start: ${e.message ?? e}` })));
  explorerLab = kernelLab($("lab-explorer"), { gpu, guarded });
  explorerLab.unavailable("Run an operation above: the kernel it ran appears here, to edit and run again on the same inputs.");
  initNmf(gpu, texla, guarded);
  initLinear(gpu, texla, guarded, shown);
  $("square-form").addEventListener("submit", (e) => {
    e.preventDefault();
    shown("square", runSquare);
  });
  $("multiply-form").addEventListener("submit", (e) => {
    e.preventDefault();
    shown("multiply", runMultiply);
  });
  const select = $("explorer-op");
  for (const [key, op] of Object.entries(OPERATIONS)) select.add(new Option(op.label, key));
  $("function-names").textContent = texla.Gpgpu.functions().join(", ");
  $("ulp-flag").textContent = ULP_FLAG;
  $("explorer-form").addEventListener("submit", (e) => {
    e.preventDefault();
    shown("explorer", () => runExplorer(texla));
  });
  $("solver-form").addEventListener("submit", (e) => {
    e.preventDefault();
    shown("solver", () => runSolver(gpu, texla, guarded));
  });
  $("solver-kind").addEventListener("change", (e) => {
    if (e.target.value.startsWith("lcp")) $("solver-problem").value = "lcp";
    else if ($("solver-problem").value === "lcp") $("solver-problem").value = "poisson1d";
  });
  $("accuracy-form").addEventListener("submit", (e) => {
    e.preventDefault();
    shown("accuracy", () => runAccuracy(texla));
  });
  $("ff-form").addEventListener("submit", (e) => {
    e.preventDefault();
    shown("float-float", () => runFloatFloat(texla));
  });
  $("bench-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const [kind, sizes] = [$("bench-kind").value, $("bench-sizes").value];
    shown("benchmark", () => runBench(kind, sizes, gpu, texla, guarded));
  });
  $("bench-kind").addEventListener("change", (e) => {
    const sizes = { matvec: MATVEC_SIZES.join(","), functions: "512", solvers: "1024,2048,4096", products: "64,128,256,512,1024", lcp: "400", passes: "128,512", sweep: "16,32,64,128,256,512,1024", figure3: "1000", figure8: "16,128,1024" };
    $("bench-sizes").value = sizes[e.target.value];
  });
  if (params.has("bench")) {
    const kind = params.get("bench") || "products";
    $("bench-kind").value = kind;
    $("bench-kind").dispatchEvent(new Event("change"));
    if (params.get("sizes")) $("bench-sizes").value = params.get("sizes");
    if (params.has("h100")) $("bench-h100").checked = true;
    const sizes = $("bench-sizes").value;
    await shown("benchmark", () => runBench(kind, sizes, gpu, texla, guarded));
  } else {
    // Once the first result is shown, the wall's shaders are built, before its reader presses
    // Start (and while the other product kernels are timed).
    await shown("square", () => runSquare(() => wall?.prepare()));
  }
  checkShownLesson();
}

function showMemory() {
  if (!gpu) return;
  const m = gpu.memory();
  const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;
  $("cap-memory").textContent = `${m.liveTextures} live (${kib(m.liveBytes)}), ${m.pooledTextures} pooled for reuse (${kib(m.pooledBytes)})`;
  $("cap-memory").dataset.live = m.liveTextures;
}

async function runExplorer(texla) {
  const out = $("explorer-result");
  await guarded(out, async () => {
    const [m, k, n] = ["m", "k", "n"].map((d) => whole(`explorer-${d}`, d, 1, 2048));
    const lo = number("explorer-lo", "the lower input bound");
    const hi = number("explorer-hi", "the upper input bound");
    if (!(lo < hi)) throw new Error(`the input range must have from < to, got [${lo}, ${hi})`);
    const seed = whole("explorer-seed", "seed", 0, 2 ** 32 - 1);
    const ran = await explore(gpu, texla, out, { name: $("explorer-op").value, m, k, n, expr: $("explorer-expr").value, lo, hi, seed });
    const lab = explorerKernel(texla, ran, ULP_FLAG);
    if (lab.why) explorerLab.unavailable(lab.why);
    else explorerLab.load(lab.source, lab.problem);
  });
}

async function runAccuracy(texla) {
  const table = $("accuracy-table");
  await guarded($("accuracy-status"), async () => {
    table.innerHTML = "";
    const rows = await measureAccuracy(gpu, texla, (what) => ($("accuracy-status").textContent = `measuring ${what}…`));
    const f = (v) => (v === undefined ? "–" : Number(v).toPrecision(3));
    table.innerHTML = `<tr><th>operation</th><th>inputs</th><th>max abs error</th><th>max rel error</th><th>max ULP</th><th>worst at</th><th>notes</th></tr>` +
      rows.map((r) => `<tr class="${r.flagged ? "flagged" : ""}" data-expr="${r.expr}"><td>${r.expr}</td><td>${r.range}</td><td>${f(r.maxAbs)}</td><td>${f(r.maxRel)}</td><td>${f(r.maxUlp)}</td>` +
        `<td>${r.worstAt?.length ? `${r.worstAt.map((v) => v.toPrecision(6)).join(", ")}: GPU ${f(r.worstGpu)}, JS ${f(r.worstJs)}` : "–"}</td>` +
        `<td>${[r.boundRatio !== undefined ? `${f(r.boundRatio)} of the float32 bound` : "", ...r.special].filter(Boolean).join("; ")}</td></tr>`).join("");
    const flagged = rows.filter((r) => r.flagged).length;
    $("accuracy-status").textContent = `${rows.length} rows on ${gpu.backend}; ${flagged} flagged.`;
    $("accuracy").dataset.done = "true";
  });
}

async function runFloatFloat(texla) {
  const out = $("ff-result");
  const status = $("ff-status");
  await guarded(out, async () => {
    out.replaceChildren();
    delete out.dataset.done;
    try {
      await floatFloatLesson(gpu, texla, out, (what) => (status.textContent = `running ${what}…`));
      out.dataset.done = "true";
    } finally {
      status.textContent = out.dataset.done ? `done on ${gpu.backend}.` : "";
    }
  });
}

async function runSquare(firstShown) {
  const out = $("square-result");
  await guarded(out, async (later) => {
    const n = whole("square-n", "n", 1, 2048);
    const seed = whole("square-seed", "seed", 0, 2 ** 32 - 1);
    const threshold = positive("square-threshold", "the highlight threshold");
    later(await product(gpu, out, { m: n, k: n, n, seed, threshold, square: true, kernel: $("square-kernel").value, shown: firstShown }));
  });
}

async function runMultiply() {
  const out = $("multiply-result");
  await guarded(out, async (later) => {
    const [m, k, n] = ["m", "k", "n"].map((d) => whole(`multiply-${d}`, d, 1, 4096));
    if (m * k * n > 2 ** 31) throw new Error(`m·k·n = ${m * k * n} is more than this page's float64 reference should take (2^31)`);
    const seed = whole("multiply-seed", "seed", 0, 2 ** 32 - 1);
    const threshold = positive("multiply-threshold", "the highlight threshold");
    later(await product(gpu, out, { m, k, n, seed, threshold, square: false, kernel: $("multiply-kernel").value }));
  });
}

/** Stops what runs aside (see `guarded`) at its next step. */
function stopAside() {
  aside?.stop.abort();
}

/** Runs `work(later)` unless another run is going on; any error becomes a message in `out`. The
 * page's buttons wait meanwhile (those enabled before), but those that need no GPU (marked
 * data-free: exercises, presentation mode, the stepper). `later(rest)` hands over what may go
 * on once the buttons are back (the kernels table's timing): `rest(signal)` runs until it is
 * done or until the reader starts another run, which starts at once and aborts `signal`. */
async function guarded(out, work) {
  if (busy) return;
  busy = true;
  const held = [...document.querySelectorAll("button:not([data-free]):not(:disabled)")];
  held.forEach((b) => (b.disabled = true));
  let rest = null;
  try {
    stopAside();
    await work((r) => (rest = r));
  } catch (e) {
    out.replaceChildren(Object.assign(document.createElement("div"), { className: "error", textContent: e.message ?? String(e) }));
  } finally {
    showMemory();
    busy = false;
    held.forEach((b) => (b.disabled = false));
  }
  if (rest) {
    const stop = new AbortController();
    const done = rest(stop.signal).finally(() => {
      if (aside?.done === done) aside = null;
      showMemory();
    });
    aside = { stop, done };
  }
}

start();
