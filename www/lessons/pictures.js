// The lessons' still pictures, drawn as SVG (each with a text alternative): every element of
// the page with `data-picture="name"` gets PICTURES[name]. The reduction and residual pictures
// are drawn again from the numbers of their lesson's check (drawReduction, drawResiduals).

const NS = "http://www.w3.org/2000/svg";
const INK = "#1d2330";
const BLUE = "#2f6db5";
const RED = "#d1495b";
const TEAL = "#00798c";
const SOFT = "#dfe7f3";

let figures = 0;

/** An SVG element of `width` x `height` user units with a text alternative. */
function svg(width, height, label, body) {
  const el = document.createElementNS(NS, "svg");
  const marker = `arrow-${++figures}`;
  body = body.replace('id="arrow"', `id="${marker}"`).replaceAll("url(#arrow)", `url(#${marker})`);
  el.setAttribute("viewBox", `0 0 ${width} ${height}`);
  el.setAttribute("width", String(width));
  el.setAttribute("height", String(height));
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", label);
  el.setAttribute("class", "figure-svg");
  el.innerHTML = body;
  return el;
}

const rect = (x, y, w, h, fill, stroke = INK, extra = "") => `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${fill}" stroke="${stroke}" stroke-width="1" ${extra}/>`;
const text = (x, y, s, size = 12, anchor = "middle", fill = INK) => `<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" fill="${fill}" font-family="system-ui, sans-serif">${s}</text>`;
const line = (x1, y1, x2, y2, stroke = INK, extra = "", width = 1.5) => `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${stroke}" stroke-width="${width}" ${extra}/>`;
const arrowHead = `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${INK}"/></marker></defs>`;
const arrow = (x1, y1, x2, y2) => line(x1, y1, x2, y2, INK, `marker-end="url(#arrow)"`);

export const PICTURES = {
  gpu: () => {
    let body = arrowHead + text(20, 18, "CPU: a few cores,", 12, "start") + text(20, 104, "one element after another:", 11, "start");
    for (let c = 0; c < 4; c++) body += rect(20 + 36 * c, 30, 30, 30, "#f3e1c7") + text(35 + 36 * c, 50, `core`, 10);
    body += text(20, 120, "C₀₀, C₀₁, C₀₂, … in turn", 11, "start");
    body += text(250, 18, "GPU: one fragment per output texel", 12, "start");
    for (let y = 0; y < 4; y++) for (let x = 0; x < 12; x++) body += rect(250 + 24 * x, 28 + 20 * y, 22, 18, SOFT) + text(261 + 24 * x, 41 + 20 * y, "f", 10);
    body += text(390, 120, "C = A + B: every texel of C at once, 4 elements each", 11);
    return svg(560, 130, "A CPU with four cores computes the elements one after another; a GPU runs one small program, a fragment, for every texel of the output at once.", body);
  },
  float: () => {
    // A toy float with 3 bits: the spacing doubles at every power of two.
    let body = line(20, 60, 540, 60);
    const x = (v) => 20 + (v / 8) * 520;
    for (let e = 0; e < 3; e++) {
      for (let m = 0; m < 4; m++) {
        const v = 2 ** e * (1 + m / 4);
        body += line(x(v), 50, x(v), 70, m === 0 ? RED : INK);
      }
      body += text(x(2 ** e), 88, String(2 ** e), 12) + text((x(2 ** e) + x(2 ** (e + 1))) / 2, 38, `spacing ${2 ** e / 4}`, 11, "middle", BLUE);
    }
    body += text(x(8), 88, "8", 12) + line(x(8), 50, x(8), 70, RED);
    return svg(560, 100, "A number line of a toy floating-point format with 2 bits after the point: between 1 and 2 the numbers are a quarter apart, between 2 and 4 a half, between 4 and 8 one apart. float32 does the same with 23 bits.", body);
  },
  targets: () => {
    let body = arrowHead + `<circle cx="60" cy="92" r="34" fill="#f3e1c7" stroke="${INK}"/>` + text(60, 88, "one", 11) + text(60, 102, "fragment", 11);
    for (let t = 0; t < 8; t++) {
      const y = 22 + 19 * t;
      body += rect(210, y, 250, 15, t === 0 ? SOFT : "#eef0f5") + text(335, y + 11, `render target ${t}: slab ${t} of C's columns`, 10);
      body += arrow(94, 92, 206, y + 7);
    }
    body += text(60, 150, "fetches 4 texels of A", 10) + text(60, 163, "(shared) + 8 of B", 10) + text(470, 96, "8 output texels", 11, "start") + text(470, 110, "per fragment", 11, "start");
    return svg(560, 185, "One fragment writes one output texel into each of 8 render targets; the 4 texels of A it fetches per step serve all 8, so a step costs 4 + 8 fetches for 128 multiply-adds.", body);
  },
  compute: () => {
    let body = arrowHead;
    for (let y = 0; y < 16; y++) for (let x = 0; x < 16; x++) body += rect(200 + 10 * x, 20 + 10 * y, 10, 10, x === 3 && y === 5 ? RED : SOFT, "#9aa");
    body += text(280, 14, "C block 128 × 128: 16 × 16 threads, 8 × 8 outputs each", 11);
    body += rect(20, 20, 120, 50, "#f3e1c7") + text(80, 40, "tile of A", 11) + text(80, 56, "workgroup memory", 10);
    body += rect(20, 110, 120, 50, "#f3e1c7") + text(80, 130, "tile of B", 11) + text(80, 146, "workgroup memory", 10);
    body += arrow(140, 45, 198, 80) + arrow(140, 135, 198, 120);
    body += text(480, 60, "one thread (red):", 11) + text(480, 76, "64 sums in registers,", 11) + text(480, 92, "reads each tile value", 11) + text(480, 108, "from fast shared memory", 11);
    return svg(560, 190, "A compute workgroup of 16 by 16 threads computes a 128 by 128 block of C. Tiles of A and B are loaded once into workgroup memory and read from there by all 256 threads; each thread keeps 8 by 8 sums in registers.", body);
  },
  functions: () => {
    let body = arrowHead + text(140, 16, "texla: ONE pass", 12) + text(420, 16, "one kernel per operation: 4 passes", 12);
    const node = (x, y, s, fill = SOFT) => rect(x - 28, y - 12, 56, 22, fill) + text(x, y + 4, s, 11);
    body += node(140, 40, "÷", "#f3e1c7") + node(80, 80, "×") + node(200, 80, "sqrt") + node(50, 120, "a") + node(110, 120, "cos") + node(200, 120, "c") + node(110, 155, "b");
    body += line(140, 51, 80, 69) + line(140, 51, 200, 69) + line(80, 91, 50, 109) + line(80, 91, 110, 109) + line(200, 91, 200, 109) + line(110, 131, 110, 144);
    for (let p = 0; p < 4; p++) body += rect(330 + 50 * p, 60, 40, 40, "#eef0f5") + text(350 + 50 * p, 84, ["cos", "×", "sqrt", "÷"][p], 11) + (p < 3 ? arrow(370 + 50 * p, 80, 380 + 50 * p, 80) : "");
    body += text(420, 125, "3 textures written and read again", 11);
    return svg(560, 175, "The expression a times cos of b divided by sqrt of c as a tree, evaluated in one fragment-shader pass by texla, beside four passes with three intermediate textures when each operation is its own kernel.", body);
  },
  lcp: () => {
    let body = arrowHead + arrow(60, 160, 60, 20) + arrow(60, 160, 230, 160);
    body += line(60, 160, 60, 30, RED, "", 5) + line(60, 160, 220, 160, RED, "", 5);
    body += text(40, 26, "w", 13) + text(232, 176, "x", 13);
    body += text(270, 50, "For each unknown: x ≥ 0, w = (Ax + b)ᵢ ≥ 0,", 11, "start") + text(270, 68, "and x·w = 0: one of the two is zero.", 11, "start");
    body += text(270, 96, "The solutions lie on the red L;", 11, "start") + text(270, 114, "projected Jacobi steps, then", 11, "start") + text(270, 132, "projects back: x ← max(0, …).", 11, "start");
    body += text(270, 160, "A contact: x the push, w the gap speed.", 11, "start");
    return svg(560, 185, "The complementarity condition for one unknown: x and w are both non-negative and one of them is zero, so the solutions lie on the two positive half-axes, drawn as a red L.", body);
  },
  simd: () => {
    const m = 16;
    const cell = 9;
    const next = (() => { let s = 21; return () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32); })();
    const order = [...Array(m).keys()].sort(() => next() - 0.5);
    const draw = (x0, perm, title) => {
      let out = text(x0 + (m * cell) / 2, 14, title, 11);
      const blocks = new Set();
      for (let i = 0; i < m; i++) for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < m) blocks.add(`${perm[i] >> 2},${perm[j] >> 2}`);
      for (const key of blocks) { const [bi, bj] = key.split(",").map(Number); out += rect(x0 + bj * 4 * cell, 22 + bi * 4 * cell, 4 * cell, 4 * cell, SOFT, "none"); }
      for (let i = 0; i < m; i++) for (const j of [i - 1, i, i + 1]) if (j >= 0 && j < m) out += rect(x0 + perm[j] * cell + 1, 22 + perm[i] * cell + 1, cell - 2, cell - 2, INK, "none");
      for (let b = 0; b <= 4; b++) out += line(x0 + b * 4 * cell, 22, x0 + b * 4 * cell, 22 + m * cell, "#99a") + line(x0, 22 + b * 4 * cell, x0 + m * cell, 22 + b * 4 * cell, "#99a");
      return out + text(x0 + (m * cell) / 2, 22 + m * cell + 16, `${blocks.size} blocks of 4 × 4`, 11);
    };
    const body = draw(40, [...Array(m).keys()], "natural order") + draw(330, order, "unknowns shuffled");
    return svg(560, 200, "A 16 by 16 tridiagonal matrix with its 4 by 4 blocks: in the natural order its non-zeros fill 10 blocks; with its unknowns shuffled they spread over many more, and each block costs four-wide instructions.", body);
  },
  nmf: () => {
    let body = rect(20, 30, 60, 120, SOFT) + text(50, 94, "F", 16) + text(50, 166, "361 × images", 10);
    body += text(110, 96, "≈", 20) + rect(140, 30, 24, 120, "#f3e1c7") + text(152, 94, "U", 14) + text(152, 166, "361 × k", 10);
    body += rect(180, 60, 200, 24, "#f3e1c7") + text(280, 76, "Vᵀ (k × images)", 12);
    body += text(392, 40, "each column of F: one 19 × 19 image", 11, "start") + text(392, 58, "each column of U: a part (≥ 0)", 11, "start") + text(392, 76, "each row of V: how much of", 11, "start") + text(392, 92, "each part an image uses", 11, "start");
    body += text(392, 120, "V ← V ⊙ (FᵀU) ⊘ (V UᵀU + ε)", 11, "start") + text(392, 138, "U ← U ⊙ (F V) ⊘ (U VᵀV + ε)", 11, "start");
    return svg(660, 180, "F, a tall matrix with one image per column, is approximately U times V transposed: U is tall and thin with k columns, the parts; V transposed is short and wide.", body);
  },
};

/** Draws every still picture of the page. */
export function drawPictures() {
  for (const box of document.querySelectorAll("[data-picture]")) {
    const make = PICTURES[box.dataset.picture];
    if (make) box.replaceChildren(make());
  }
  const reduce = document.querySelector("#lesson-reduce [data-part=picture] .picture");
  if (reduce) drawReduction(reduce, 100, 100);
}

/** The texture sizes of gpu.sum's passes on an m x n matrix, drawn as shrinking rectangles. */
export function drawReduction(box, m, n) {
  const sizes = [[n, Math.ceil(m / 4)]];
  do sizes.push(sizes.at(-1).map((s) => Math.ceil(s / 4))); while (sizes.at(-1).some((s) => s > 1));
  // Side lengths on a square-root scale, so that the last passes' few texels stay visible.
  const side = (v) => 8 + 22 * Math.sqrt(v);
  const tallest = Math.max(...sizes.map(([, h]) => side(h)));
  let body = arrowHead;
  let x = 20;
  sizes.forEach(([w, h], k) => {
    const [pw, ph] = [side(w), side(h)];
    body += rect(x, 20, pw, ph, k === 0 ? SOFT : "#f3e1c7") + text(x + pw / 2, 20 + tallest + 16, `${w} × ${h}`, 11);
    if (k < sizes.length - 1) body += arrow(x + pw + 4, 30, x + pw + 26, 30);
    x += pw + 32;
  });
  body += arrow(x - 28, 30, x - 4, 30) + text(x + 2, 34, "Σ of 4 channels", 11, "start");
  box.replaceChildren(svg(x + 100, tallest + 46, `gpu.sum of a ${m} by ${n} matrix: its texture of ${n} by ${Math.ceil(m / 4)} texels shrinks 16-fold per pass, ${sizes.map(([w, h]) => `${w} by ${h}`).join(", then ")}, and a last pass adds the four channels of the one texel left.`, body));
}

/** Plots float32 (GPU) and float64 residuals of CG on a log scale, and the true residual of the
 * float32 x (computed in float64) as a dashed line; `label32` names the float32 curve. */
export function drawResiduals(box, gpu32, js64, true32, label32 = "GPU float32 (CG's own residual)") {
  const [w, h, left, top] = [560, 220, 50, 15];
  const all = [...gpu32, ...js64, true32].filter((v) => v > 0);
  const [lo, hi] = [Math.floor(Math.log10(Math.min(...all))), Math.ceil(Math.log10(Math.max(...all)))];
  const n = Math.max(gpu32.length, js64.length) - 1 || 1;
  const px = (i) => left + (i / n) * (w - left - 20);
  const py = (v) => top + ((hi - Math.log10(Math.max(v, 10 ** lo))) / (hi - lo || 1)) * (h - top - 35);
  let body = line(left, top, left, h - 35) + line(left, h - 35, w - 20, h - 35);
  for (let e = lo; e <= hi; e += Math.max(1, Math.ceil((hi - lo) / 6))) body += text(left - 4, py(10 ** e) + 4, `1e${e}`, 10, "end") + line(left, py(10 ** e), w - 20, py(10 ** e), "#e3e5ea");
  const path = (vals, color) => `<polyline fill="none" stroke="${color}" stroke-width="2" points="${vals.map((v, i) => `${px(i).toFixed(1)},${py(v).toFixed(1)}`).join(" ")}"/>`;
  body += path(gpu32, RED) + path(js64, TEAL) + line(left, py(true32), w - 20, py(true32), RED, `stroke-dasharray="6 4"`);
  body += text(w - 24, py(true32) - 5, "true residual of the float32 x: it stalls here", 11, "end", RED);
  body += text(w - 24, top + 12, label32, 11, "end", RED) + text(w - 24, top + 28, "JavaScript float64", 11, "end", TEAL) + text((w + left) / 2, h - 8, "iteration", 11);
  box.replaceChildren(svg(w, h, `Relative residual of conjugate gradients against the iteration, on a log scale: the float32 recurrence (${label32}) goes down to ${Math.min(...gpu32).toExponential(1)}, but the true residual of its x stays at ${true32.toExponential(1)} (dashed); float64 goes on down to ${Math.min(...js64).toExponential(1)}.`, body));
}

/** Lesson 10's comparison: the residual max |x − proj(x − (Ax + b))| of one frame of the wall's
 * LCP after k iterations from zero, for each solver: the GPU's impulses (solid) and the float64
 * twin's (dashed), both residuals computed in float64; k on a log2 scale. */
export function drawSolverCurves(box, ks, curves) {
  const [w, h, left, top] = [560, 230, 50, 15];
  const all = curves.flatMap((c) => [...c.gpu, ...c.f64]).filter((v) => v > 0);
  const [lo, hi] = [Math.floor(Math.log10(Math.min(...all))), Math.ceil(Math.log10(Math.max(...all)))];
  const px = (i) => left + (i / (ks.length - 1 || 1)) * (w - left - 175);
  const py = (v) => top + ((hi - Math.log10(Math.max(v, 10 ** lo))) / (hi - lo || 1)) * (h - top - 35);
  let body = line(left, top, left, h - 35) + line(left, h - 35, w - 175, h - 35);
  for (let e = lo; e <= hi; e++) body += text(left - 4, py(10 ** e) + 4, `1e${e}`, 10, "end") + line(left, py(10 ** e), w - 175, py(10 ** e), "#e3e5ea");
  ks.forEach((k, i) => (body += text(px(i), h - 22, String(k), 10)));
  const path = (vals, color, extra = "") => `<polyline fill="none" stroke="${color}" stroke-width="2" ${extra} points="${vals.map((v, i) => `${px(i).toFixed(1)},${py(v).toFixed(1)}`).join(" ")}"/>`;
  const colors = [RED, BLUE, TEAL];
  curves.forEach((c, n) => {
    body += path(c.gpu, colors[n]) + path(c.f64, colors[n], `stroke-dasharray="5 4" opacity="0.8"`);
    body += text(w - 165, top + 14 + 16 * n, c.name, 11, "start", colors[n]);
  });
  body += text(w - 165, top + 70, "solid: GPU float32", 11, "start") + text(w - 165, top + 86, "dashed: float64 (under", 11, "start") + text(w - 165, top + 100, "the solid where equal)", 11, "start");
  body += text(left - 4, top - 4, "residual, m/s", 10, "start");
  body += text((w - 125) / 2, h - 6, "iterations (sweeps for Gauss-Seidel), from zero", 11);
  const said = curves.map((c) => `${c.name} ${c.gpu.at(-1).toExponential(1)} after ${ks.at(-1)}`).join(", ");
  box.replaceChildren(svg(w, h, `Residual of one frame of the wall's contact LCP against the iterations from zero, on log scales, each solver on the GPU in float32 beside its float64 twin: ${said}.`, body));
}
