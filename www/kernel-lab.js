// The kernel lab: edit a kernel's body (WGSL on WebGPU, GLSL ES 3.00 on WebGL2), run it on your
// GPU with gpu.runKernel, and see every element checked against float64 within its error bound.
// A body that does not compile shows the compiler's messages at their lines (the prelude texla
// puts around the body is mapped away), and the same Gpgpu goes on working: runKernel compiles
// inside an error scope (WebGPU) or reads the info log (WebGL2), never losing the device.
// Reset brings the original body back. Labs keep their matrices small: a kernel whose loop never
// ends would hold the GPU until the browser resets it (the page then brings the GPU back).

import { mulberry32, randomMatrix, dotErrorBound, ulp32 } from "./reference/products.js";
import { reference } from "./reference/worker-client.js";

/** Pixels of one editor line (www/style.css sets the editor's line-height to this). */
const LINE_PX = 20;
/** The largest side of a matrix a lab runs a kernel of yours on. */
export const LAB_MAX_SIDE = 256;

const fmt = (v, digits = 3) => (Number.isFinite(v) ? v.toPrecision(digits) : String(v));
const el = (tag, props = {}, ...children) => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
};

/**
 * Makes `box` a kernel lab on `gpu`. `guarded(out, work)` is app.js's: one run at a time, any
 * error shown in `out`. Returns `{ load(original, problem) }`: `original` is the body to start
 * from and come back to, `{ wgsl, glsl, compute, params, note }`; `problem()` makes the run's
 * inputs and float64 answer, `{ inputs: [{ data, rows, cols }], rows, cols, exact(), what }`
 * where `exact()` resolves to `{ values, bounds, bound }` (each element's float64 value, its
 * allowed |error|, and the bound in words).
 */
export function kernelLab(box, { gpu, guarded }) {
  const lang = gpu.backend === "webgpu" ? "wgsl" : "glsl";
  const language = lang === "wgsl" ? "WGSL" : "GLSL ES 3.00";
  const note = el("p", { className: "kernel-lab-note" });
  const gutter = el("div", { className: "gutter" });
  gutter.setAttribute("aria-hidden", "true");
  const marks = el("div", { className: "marks" });
  marks.setAttribute("aria-hidden", "true");
  const text = el("textarea", { spellcheck: false, wrap: "off", className: "kernel-source" });
  text.setAttribute("autocapitalize", "off");
  text.setAttribute("aria-label", `the kernel's body, ${language}: edit it and run it`);
  const run = el("button", { type: "button", className: "lab-run", textContent: "Run my kernel on the GPU" });
  const reset = el("button", { type: "button", className: "lab-reset", textContent: "Reset to the original" });
  reset.dataset.free = "";
  const status = el("span", { className: "status" });
  status.setAttribute("aria-live", "polite");
  const out = el("div", { className: "kernel-lab-result" });
  out.setAttribute("aria-live", "polite");
  box.replaceChildren(note, el("div", { className: "editor" }, gutter, el("div", { className: "code" }, marks, text)),
    el("div", { className: "controls" }, run, reset, status), out);
  box.dataset.lang = lang;

  let original = null;
  let problem = null;
  let errorLines = [];

  const paint = () => {
    const count = text.value.split("\n").length;
    gutter.replaceChildren(...Array.from({ length: count }, (_, i) => el("div", { className: errorLines.includes(i + 1) ? "error" : "", textContent: String(i + 1) })));
    gutter.scrollTop = text.scrollTop;
    marks.replaceChildren(...errorLines.filter((l) => l <= count).map((l) => {
      const bar = el("div");
      bar.style.top = `${(l - 1) * LINE_PX - text.scrollTop + 6}px`;
      return bar;
    }));
    text.rows = Math.min(28, Math.max(8, count + 1));
  };
  const mark = (lines) => {
    errorLines = lines;
    box.dataset.errorLines = lines.join(",");
    paint();
  };
  text.addEventListener("input", () => mark([]));
  text.addEventListener("scroll", paint);
  /** Selects line `n` of the body and brings it into view. */
  const goTo = (n) => {
    const lines = text.value.split("\n");
    const start = lines.slice(0, n - 1).reduce((s, l) => s + l.length + 1, 0);
    text.focus({ preventScroll: true });
    text.setSelectionRange(start, start + (lines[n - 1]?.length ?? 0));
    text.scrollTop = Math.max(0, (n - 3) * LINE_PX);
    paint();
  };

  const restore = () => {
    if (!original) return;
    text.value = original[lang] ?? "";
    // Long bodies (an expression's carries the function library) open at their kernel.
    const at = text.value.split("\n").findIndex((l) => !l.trimStart().startsWith("//") && /\bkernel\s*\(|@compute/.test(l));
    mark([]);
    text.scrollTop = Math.max(0, (at - 4) * LINE_PX);
    paint();
    out.replaceChildren();
    status.textContent = "the original body";
    box.dataset.state = "original";
    delete box.dataset.withinBound;
  };
  reset.addEventListener("click", restore);

  const showCompileError = (e) => {
    const items = (e.messages ?? []).map((m) => {
      const li = el("li");
      if (m.line) {
        li.dataset.line = m.line;
        const go = el("button", { type: "button", className: "link", textContent: `line ${m.line}${m.column ? `, column ${m.column}` : ""}` });
        go.dataset.free = "";
        go.addEventListener("click", () => goTo(m.line));
        li.append(go, `: ${m.message}`);
      } else {
        li.append(m.message);
      }
      return li;
    });
    out.replaceChildren(el("div", { className: "error compile-error" },
      el("p", { textContent: `Your kernel did not compile on ${gpu.backend === "webgpu" ? "WebGPU" : "WebGL2"} (${language}). Nothing ran; the GPU is as it was. Fix the line${e.lines?.length === 1 ? "" : "s"} marked in the editor, or reset to the original.` }),
      items.length ? el("ol", {}, ...items) : el("p", { textContent: e.message })));
    mark(e.lines ?? []);
    if (e.lines?.length) goTo(e.lines[0]);
    box.dataset.state = "compile-error";
    status.textContent = "did not compile";
  };

  run.addEventListener("click", () => guarded(out, async () => {
    if (!problem) return;
    const p = problem();
    if ([p.rows, p.cols, ...p.inputs.flatMap((i) => [i.rows, i.cols])].some((s) => s > LAB_MAX_SIDE)) {
      throw new Error(`The kernel lab runs on matrices up to ${LAB_MAX_SIDE} a side (a kernel of yours whose loop never ends would hold the GPU long on large ones): make the shapes smaller.`);
    }
    status.textContent = "compiling and running on your GPU…";
    box.dataset.state = "running";
    delete box.dataset.withinBound;
    mark([]);
    const mats = p.inputs.map((i) => gpu.upload(i.data, i.rows, i.cols));
    let values;
    const t0 = performance.now();
    try {
      const c = await gpu.runKernel({ [lang]: text.value, compute: original.compute ? { perGroup: original.compute.perGroup } : null }, mats, { rows: p.rows, cols: p.cols, params: original.params ?? [] });
      try {
        values = await c.read();
      } finally {
        c.free();
      }
    } catch (e) {
      if (e.messages) return showCompileError(e);
      box.dataset.state = "error";
      status.textContent = "";
      throw e;
    } finally {
      mats.forEach((m) => m.free());
    }
    const ms = performance.now() - t0;
    status.textContent = "checking against float64…";
    const exact = await p.exact();
    showCheck(out, values, exact, p, ms, gpu.backend);
    box.dataset.withinBound = out.querySelector(".lab-summary").dataset.withinBound;
    box.dataset.state = "ran";
    status.textContent = "";
  }));

  return {
    /** Starts the lab on `source` (the original body) and `make` (the problem). */
    load(source, make) {
      original = source;
      problem = make;
      note.replaceChildren(...(source.note ?? []));
      run.disabled = false;
      restore();
      status.textContent = "";
    },
    /** Says why there is nothing to edit, and disables Run. */
    unavailable(why) {
      original = null;
      problem = null;
      note.replaceChildren(why);
      text.value = "";
      mark([]);
      out.replaceChildren();
      box.dataset.state = "unavailable";
    },
  };
}

/** The run's elements against float64: a summary, the worst and a few other elements, and a
 * heatmap of each element's error as a fraction of its bound. */
function showCheck(out, values, { values: exact, bounds, bound }, p, ms, backend) {
  const n = p.cols;
  let worst = 0;
  let worstRatio = 0;
  let outside = 0;
  const ratios = new Float64Array(exact.length);
  for (let i = 0; i < exact.length; i++) {
    const [g, e] = [values[i], exact[i]];
    const special = !Number.isFinite(e) || !Number.isFinite(g);
    const err = Math.abs(g - e);
    const r = special ? ((Number.isNaN(g) && Number.isNaN(e)) || g === e ? 0 : Infinity) : err === 0 ? 0 : err / bounds[i];
    ratios[i] = r;
    if (!(r <= 1)) outside++;
    if (!(r <= worstRatio)) [worstRatio, worst] = [r, i];
  }
  const within = outside === 0;
  const at = (i) => `(${Math.floor(i / n)}, ${i % n})`;
  const summary = el("div", { className: "lab-summary" });
  summary.dataset.withinBound = String(within);
  summary.dataset.worstRatio = String(worstRatio);
  summary.append(
    el("p", { textContent: `Your kernel ran on ${backend === "webgpu" ? "WebGPU" : "WebGL2"} in ${ms.toFixed(1)} ms (compile, run and read-back): ${p.what}, ${exact.length} elements, each checked against float64 within ${bound}.` }),
    el("p", {
      className: within ? "ok" : "bad",
      textContent: within
        ? `All ${exact.length} elements are within their bound (the worst, element ${at(worst)}, at ${fmt(worstRatio, 2)} of it).`
        : `${outside} of ${exact.length} elements are outside their bound: element ${at(worst)} is ${values[worst]} on the GPU and ${exact[worst]} in float64, ${fmt(worstRatio, 3)} times its bound. Your kernel computes something else.`,
    }));
  const picks = [...new Set([0, n - 1, exact.length - 1, worst, Math.floor(exact.length / 2)])].filter((i) => i >= 0 && i < exact.length).sort((a, b) => a - b);
  const table = el("table", { className: "numbers lab-elements" });
  table.innerHTML = `<caption>Some elements, the worst among them</caption><tr><th>i</th><th>j</th><th>GPU float32</th><th>JS float64</th><th>|error| / bound</th></tr>` +
    picks.map((i) => `<tr class="${ratios[i] <= 1 ? "" : "flagged"}"><td>${Math.floor(i / n)}</td><td>${i % n}</td><td>${Number(values[i]).toPrecision(9)}</td><td>${Number(exact[i]).toPrecision(17)}</td><td>${fmt(ratios[i], 2)}</td></tr>`).join("");
  const canvas = el("canvas", { className: "lab-heatmap" });
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", "each element's error as a fraction of its bound");
  paintRatios(canvas, ratios, p.rows, n);
  out.replaceChildren(summary, el("div", { className: "result-grid" }, table,
    el("figure", { className: "heatmap" }, canvas, el("figcaption", { textContent: "Each element's error as a fraction of its bound, log scale: black at 10⁻⁴ or less, yellow at the bound, red beyond it." }))));
}

/** Paints each ratio error / bound (rows x cols), log scale, red past 1. */
function paintRatios(canvas, ratios, rows, cols) {
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext("2d");
  const img = ctx.createImageData(cols, rows);
  ratios.forEach((r, p) => {
    const t = r > 0 ? Math.min(1, Math.max(0, (Math.log10(r) + 4) / 4)) : 0;
    img.data.set([...(r > 1 ? [220, 20, 30] : [255 * t, 220 * t, 40 * t]), 255], 4 * p);
  });
  ctx.putImageData(img, 0, 0);
}

/** The float64 product A·B of a lab's inputs, each element's bound 2(k+2)·2⁻²⁴·Σ|a·b|. */
export async function productAnswer(a, b, m, k, n) {
  const ref = await reference(a, b, m, k, n);
  return { values: ref.c, bounds: ref.s.map((s) => dotErrorBound(k, s)), bound: "the float32 error bound 2(k+2)·2⁻²⁴·Σ|a·b|" };
}

/** Each element's bound: `ulps` ULP of its float64 value (the accuracy table's flag). */
export function ulpBounds(exact, ulps) {
  return { values: exact, bounds: Float64Array.from(exact, (e) => ulps * ulp32(e)), bound: `${ulps} ULP (units in the last place of float32), the accuracy table's flag` };
}

/** A·B of random m x k and k x n matrices from `seed`, as a lab's problem. */
export function productProblem(m, k, n, seed) {
  const next = mulberry32(seed);
  const a = randomMatrix(next, m * k);
  const b = randomMatrix(next, k * n);
  return () => ({
    inputs: [{ data: a, rows: m, cols: k }, { data: b, rows: k, cols: n }],
    rows: m,
    cols: n,
    what: `C = A·B with A ${m} × ${k} and B ${k} × ${n} (entries uniform in [−1, 1))`,
    exact: () => productAnswer(a, b, m, k, n),
  });
}

/** The starting body of lesson 6's compute lab (WebGPU): a tiled product in workgroup memory. */
const COMPUTE_MATMUL = `// C = A * B on the compute path: a workgroup of 8 x 8 invocations computes 8 x 8 output
// texels (32 rows x 8 columns of C), one each. Step by step along k, the workgroup first
// copies the 8 columns of A its rows need (8 x 8 texels) and the 8 rows of B its columns need
// (8 x 2 texels) into workgroup memory, once; then every invocation reads them from there, so
// a texel of A fetched once serves 8 invocations. workgroupBarrier() makes every copy land
// before anyone reads, and every read end before the next copy.
var<workgroup> a_tile: array<array<vec4<f32>, 8>, 8>; // [texel row][column of A in the step]
var<workgroup> b_tile: array<array<vec4<f32>, 2>, 8>; // [column of C][texel row of B in the step]

@compute @workgroup_size(8, 8)
fn cs_main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let lx = i32(lid.x);
    let ly = i32(lid.y);
    let x = i32(wid.x) * 8 + lx; // this invocation's column of C
    let y = i32(wid.y) * 8 + ly; // and texel row of C (rows 4y .. 4y+3)
    let k = a_cols();
    var acc = vec4<f32>(0.0);
    for (var p0 = 0; p0 < k; p0 += 8) {
        // Invocation (lx, ly) copies A's texel of column p0 + lx, texel row y...
        var a = vec4<f32>(0.0);
        if (p0 + lx < k && y < a_height()) { a = a_texel(p0 + lx, y); }
        a_tile[ly][lx] = a;
        // ...and invocations lx = 0, 1 copy B's texel rows p0/4 + lx of column wid.x * 8 + ly.
        if (lx < 2) {
            let bx = i32(wid.x) * 8 + ly;
            let by = p0 / 4 + lx;
            var b = vec4<f32>(0.0);
            if (bx < b_cols() && by < b_height()) { b = b_texel(bx, by); }
            b_tile[ly][lx] = b;
        }
        workgroupBarrier();
        for (var q = 0; q < 8; q++) {
            acc += a_tile[ly][q] * b_tile[lx][q / 4][q % 4];
        }
        workgroupBarrier();
    }
    if (x < out_cols() && 4 * y < out_rows()) {
        textureStore(out_tex, vec2<i32>(x, y), mask_padding(y, acc));
    }
}
`;

/** What a body may use, for the labs' notes. */
function uses(compute) {
  const d = el("details", { className: "kernel-lab-uses" }, el("summary", { textContent: "What your body may use" }));
  d.append(el("p", {
    textContent: compute
      ? "A compute body defines @compute @workgroup_size(…) fn cs_main(…) and stores output texels with textureStore(out_tex, vec2<i32>(x, y), value); each workgroup covers 8 × 8 output texels here. "
      : "The body defines kernel(texel), returning output texel texel = (column x, texel row y): rows 4y … 4y+3 of column x, as a vec4. ",
  }), el("p", { textContent: "Inputs a (A) and b (B): a_texel(x, y) (x, y inside the texture), a_rows(), a_cols(), a_width(), a_height(), and the same for b; out_rows(), out_cols(); mask_padding(y, v) zeroes the rows past the end. The prelude around your body is in shaders/prelude/, described in shaders/README.md." }));
  return d;
}

/** The teaching kernel's body in both languages (shaders/products/matmul.*), as
 * `Gpgpu.kernelSources` gives a kernel's own lines. */
function teachingKernel(texla) {
  const { own } = texla.Gpgpu.kernelSources("matmul", { kernel: "teaching" });
  return { wgsl: own.wgsl, glsl: own.glsl, compute: null, params: [] };
}

/** Lesson 3's lab (the teaching kernel) and lesson 6's (a compute kernel on WebGPU; on WebGL2,
 * which has no compute shaders, the fragment kernel with a note). */
export async function initKernelLabs(texla, gpu, guarded) {
  const teaching = teachingKernel(texla);
  const multiply = kernelLab(document.getElementById("lab-multiply"), { gpu, guarded });
  multiply.load({ ...teaching, note: ["This is the teaching kernel that multiplies in this lesson (shaders/products/matmul.*), in the language your GPU runs. Change it, run it, and every element of C = A·B is checked against float64. Try: drop the tail step after the loop (k = 29 is not a multiple of 4), or swap b.y and b.z.", uses(false)] },
    productProblem(13, 29, 7, 3));
  const compute = kernelLab(document.getElementById("lab-compute"), { gpu, guarded });
  if (gpu.backend === "webgpu") {
    compute.load({ wgsl: COMPUTE_MATMUL, glsl: "", compute: { perGroup: [8, 8] }, params: [], note: ["A compute kernel that multiplies with tiles in workgroup memory, simpler than texla's own (8 × 8 invocations, one output texel each). Change it and run it: C = A·B is checked element by element against float64. Try: remove the second workgroupBarrier(), or make the tile loop step by 4.", uses(true)] },
      productProblem(37, 70, 29, 4));
  } else {
    compute.load({ ...teaching, note: ["WebGL2 has no compute shaders, so this lab edits the fragment kernel here (the same as lesson 3's): the compute lab, with workgroup memory and barriers, needs WebGPU (open the page with ?backend=webgpu in a browser that has it).", uses(false)] },
      productProblem(37, 70, 29, 4));
  }
}
