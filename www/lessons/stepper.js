// Lesson 3's interactive picture: pick an output element of C = A·B and step through the inner
// index with the teaching kernel. The texels the fragment fetches at each step are drawn (SVG),
// and the lines of the kernel that run are highlighted in its WGSL and GLSL sources: the files
// shaders/products/matmul.wgsl and .glsl themselves, the bodies compiled into texla.

const NS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const SOURCES = { wgsl: "../../shaders/products/matmul.wgsl", glsl: "../../shaders/products/matmul.glsl" };

/** The steps of the teaching kernel for an output texel with inner dimension k: each step's
 * first inner index p, the A texels (columns) it fetches, and whether it is the k % 4 tail. */
export function steps(k) {
  const out = [];
  let p = 0;
  for (; p + 4 <= k; p += 4) out.push({ p, a: [p, p + 1, p + 2, p + 3], tail: false });
  if (p < k) out.push({ p, a: Array.from({ length: k - p }, (_, d) => p + d), tail: true });
  return out;
}

/** Texel fetches of one output fragment: 4 of A and 1 of B per full step, fewer in the tail. */
export const fetchesPerFragment = (k) => steps(k).reduce((s, st) => s + st.a.length + 1, 0);

export function initStepper() {
  const fields = ["m", "k", "n", "i", "j"].map((d) => $(`step-${d}`));
  if (fields.some((f) => !f)) return;
  let sources = null;
  let at = 0;
  const read = () => {
    const [m, k, n] = fields.slice(0, 3).map((f) => Math.max(1, Math.min(24, Math.floor(Number(f.value)) || 1)));
    const i = Math.max(0, Math.min(m - 1, Math.floor(Number(fields[3].value)) || 0));
    const j = Math.max(0, Math.min(n - 1, Math.floor(Number(fields[4].value)) || 0));
    return { m, k, n, i, j };
  };
  const draw = () => {
    const s = read();
    const all = steps(s.k);
    at = Math.max(0, Math.min(all.length - 1, at));
    const st = all[at];
    const y = Math.floor(s.i / 4);
    const status = $("step-status");
    status.textContent = `Output element (${s.i}, ${s.j}) is channel ${"rgba"[s.i % 4]} of output texel (x = ${s.j}, y = ${y}): one fragment computes it and the 3 other rows of its texel. ` +
      `Step ${at + 1} of ${all.length}, p = ${st.p}: it fetches B's texel (${s.j}, ${st.p / 4}) (rows ${st.p}…${st.p + 3} of column ${s.j}) and A's texels ${st.a.map((c) => `(${c}, ${y})`).join(", ")}` +
      `${st.tail ? `: the tail, k mod 4 = ${s.k % 4} columns, so only ${st.a.length} of A` : ""}. ` +
      `In all, ${fetchesPerFragment(s.k)} texel fetches for ${4 * s.k} multiply-adds.`;
    status.dataset.step = String(at);
    status.dataset.fetches = String(fetchesPerFragment(s.k));
    $("step-prev").disabled = at === 0;
    $("step-next").disabled = at === all.length - 1;
    drawFetches($("step-svg"), s, st, y);
    if (sources) highlight(st.tail);
  };
  const highlight = (tail) => {
    for (const pre of document.querySelectorAll("#step-sources pre")) {
      const lines = [...pre.children];
      const tailStart = lines.findIndex((l) => l.textContent.includes("if (p < k)"));
      lines.forEach((l, n) => {
        const t = l.textContent;
        const inLoop = n < tailStart && (t.includes("b_texel(x, p / 4)") || t.includes("acc +=") || t.includes("a_texel(p + 2"));
        const inTail = n >= tailStart && (t.includes("b_texel") || t.includes("acc +=") || t.includes("if (p < k)"));
        l.classList.toggle("hl", tail ? inTail : inLoop);
      });
    }
  };
  fields.forEach((f) => f.addEventListener("input", () => ((at = 0), draw())));
  $("step-prev").addEventListener("click", () => ((at -= 1), draw()));
  $("step-next").addEventListener("click", () => ((at += 1), draw()));
  draw();
  // The kernel's own source files, fetched from this page's origin.
  Promise.all(Object.entries(SOURCES).map(async ([lang, path]) => [lang, await (await fetch(new URL(path, import.meta.url))).text()]))
    .then((got) => {
      sources = Object.fromEntries(got);
      const box = $("step-sources");
      box.replaceChildren(...got.map(([lang, src]) => {
        const fig = document.createElement("figure");
        fig.className = "shader-source";
        const cap = document.createElement("figcaption");
        cap.textContent = lang === "wgsl" ? "shaders/products/matmul.wgsl (WebGPU)" : "shaders/products/matmul.glsl (WebGL2)";
        const pre = document.createElement("pre");
        pre.className = "shader stepped";
        pre.tabIndex = 0;
        pre.setAttribute("aria-label", `${lang.toUpperCase()} source of the teaching kernel; the lines of the current step are marked`);
        for (const text of src.trimEnd().split("\n")) pre.append(Object.assign(document.createElement("span"), { textContent: `${text}\n` }));
        fig.append(cap, pre);
        return fig;
      }));
      box.dataset.loaded = "true";
      draw();
    })
    .catch((e) => ($("step-sources").textContent = `The kernel's source files could not be loaded: ${e.message}`));
}

/** A (m x k), B (k x n) and C (m x n) as texel grids; this step's texels of A and B and the
 * output texel marked. */
function drawFetches(box, { m, k, n, j }, st, y) {
  const t = 20;
  const [ah, bh, ch] = [Math.ceil(m / 4), Math.ceil(k / 4), Math.ceil(m / 4)];
  const ax = 10;
  const bx = ax + k * t + 30;
  const cx = bx + n * t + 30;
  const top = 36;
  let body = `<text x="${ax}" y="14" font-size="12">A: ${k} × ${ah} texels</text><text x="${bx}" y="14" font-size="12">B: ${n} × ${bh}</text><text x="${cx}" y="14" font-size="12">C: ${n} × ${ch}</text>`;
  body += `<text x="${ax}" y="28" font-size="10">columns p…p+3 of rows 4y…4y+3</text><text x="${bx}" y="28" font-size="10">rows p…p+3 of column x</text>`;
  const grid = (x0, w, h, mark, color) => {
    let s = "";
    for (let yy = 0; yy < h; yy++) for (let xx = 0; xx < w; xx++) {
      const hit = mark(xx, yy);
      s += `<rect x="${x0 + xx * t}" y="${top + yy * t}" width="${t - 2}" height="${t - 2}" fill="${hit ? color : "#dfe7f3"}" stroke="${hit ? "#1d2330" : "none"}"/>`;
    }
    return s;
  };
  body += grid(ax, k, ah, (xx, yy) => yy === y && st.a.includes(xx), "#d1495b");
  body += grid(bx, n, bh, (xx, yy) => xx === j && yy === st.p / 4, "#2f6db5");
  body += grid(cx, n, ch, (xx, yy) => xx === j && yy === y, "#edae49");
  const height = top + Math.max(ah, bh, ch) * t + 10;
  const svg = document.createElementNS(NS, "svg");
  const [vw, vh] = [cx + n * t + 10, height];
  svg.setAttribute("viewBox", `0 0 ${vw} ${vh}`);
  svg.setAttribute("width", String(vw));
  svg.setAttribute("height", String(vh));
  svg.setAttribute("role", "img");
  svg.setAttribute("class", "figure-svg");
  svg.setAttribute("aria-label", `Texel grids of A, B and C. This step fetches A's texels in columns ${st.a.join(", ")} of texel row ${y}, and B's texel (${j}, ${st.p / 4}); the output texel (${j}, ${y}) of C is marked.`);
  svg.innerHTML = body;
  box.replaceChildren(svg);
}
