// Lesson 2's interactive picture: pick an element (i, j) of an m x n matrix and see the texel
// (x, y) and the channel that hold it; the matrix and its texture drawn side by side (SVG), and
// the texture drawn as the image it is (canvas: each texel's r, g, b as a colour).

const NS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const CHANNELS = ["r", "g", "b", "a"];
const COLORS = ["#e15759", "#59a14f", "#4e79a7", "#9c9c9c"];

/** Where element (i, j) of a matrix lives: texel (x, y) and channel c (0..3 = r, g, b, a). */
export const texelOf = (i, j) => ({ x: j, y: Math.floor(i / 4), c: i % 4 });

/** The value of element (i, j) of the lesson's example matrix (a smooth pattern in [0, 1]). */
const value = (i, j, m, n) => (i + 0.5) / m * 0.8 + (j + 0.5) / n * 0.2;

export function initTexturePicture() {
  const fields = ["m", "n", "i", "j"].map((d) => $(`texel-${d}`));
  if (fields.some((f) => !f)) return;
  const draw = () => {
    const [m, n] = [fields[0], fields[1]].map((f) => Math.max(1, Math.min(32, Math.floor(Number(f.value)) || 1)));
    fields[2].max = String(m - 1);
    fields[3].max = String(n - 1);
    const i = Math.max(0, Math.min(m - 1, Math.floor(Number(fields[2].value)) || 0));
    const j = Math.max(0, Math.min(n - 1, Math.floor(Number(fields[3].value)) || 0));
    const { x, y, c } = texelOf(i, j);
    const h = Math.ceil(m / 4);
    const out = $("texel-answer");
    out.textContent = `Element (${i}, ${j}) of the ${m} × ${n} matrix is channel ${CHANNELS[c]} (component ${c}) of texel (x = ${x}, y = ${y}) of a texture ${n} texels wide and ${h} high` +
      `${4 * h > m ? `; its last ${4 * h - m} channel${4 * h - m > 1 ? "s" : ""} in each column are padding and read as zero` : ""}.`;
    Object.assign(out.dataset, { x, y, channel: CHANNELS[c] });
    drawLayout($("texel-svg"), m, n, i, j);
    drawImage($("texel-canvas"), m, n, x, y);
  };
  fields.forEach((f) => f.addEventListener("input", draw));
  draw();
}

/** The matrix (left) and its texture (right), the picked element and its texel highlighted. */
function drawLayout(box, m, n, pi, pj) {
  const h = Math.ceil(m / 4);
  const cell = Math.max(8, Math.min(22, Math.floor(220 / Math.max(m, n))));
  const tex = Math.max(16, Math.min(44, Math.floor(240 / Math.max(n, h))));
  const left = 10;
  const right = left + n * cell + 60;
  const height = Math.max(m * cell, h * tex) + 40;
  let body = `<text x="${left}" y="14" font-size="12">matrix ${m} × ${n}</text><text x="${right}" y="14" font-size="12">texture ${n} × ${h} texels (RGBA32F)</text>`;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      const picked = i === pi && j === pj;
      const group = j === pj && Math.floor(i / 4) === Math.floor(pi / 4);
      body += `<rect x="${left + j * cell}" y="${22 + i * cell}" width="${cell}" height="${cell}" fill="${picked ? "#d1495b" : group ? "#f3c2c8" : COLORS[i % 4]}" fill-opacity="${picked || group ? 1 : 0.35}" stroke="#fff"/>`;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < n; x++) {
      for (let c = 0; c < 4; c++) {
        const padding = 4 * y + c >= m;
        const picked = x === pj && y === Math.floor(pi / 4);
        const sx = right + x * tex + (c * tex) / 4;
        body += `<rect x="${sx}" y="${22 + y * tex}" width="${tex / 4}" height="${tex - 2}" fill="${padding ? "#fff" : COLORS[c]}" fill-opacity="${picked ? 1 : 0.35}" stroke="${padding ? "#bbb" : "none"}"/>`;
        if (picked && c === pi % 4) body += `<rect x="${sx}" y="${22 + y * tex}" width="${tex / 4}" height="${tex - 2}" fill="none" stroke="#1d2330" stroke-width="3"/>`;
      }
      if (x === pj && y === Math.floor(pi / 4)) body += `<rect x="${right + x * tex}" y="${22 + y * tex}" width="${tex}" height="${tex - 2}" fill="none" stroke="#d1495b" stroke-width="2"/>`;
    }
  }
  body += `<text x="${left}" y="${height - 4}" font-size="11">channels r g b a = rows 4y, 4y+1, 4y+2, 4y+3 of column x; white: padding</text>`;
  const svg = document.createElementNS(NS, "svg");
  const [vw, vh] = [Math.max(right + n * tex + 10, right + 400), height];
  svg.setAttribute("viewBox", `0 0 ${vw} ${vh}`);
  // Drawn half again as large as its coordinates (a class sees it from the back of the room);
  // the style sheet shrinks it to the width of a phone.
  svg.setAttribute("width", String(Math.round(vw * 1.5)));
  svg.setAttribute("height", String(Math.round(vh * 1.5)));
  svg.setAttribute("role", "img");
  svg.setAttribute("class", "figure-svg");
  svg.setAttribute("aria-label", `An ${m} by ${n} matrix beside its texture of ${n} by ${h} texels; each texel's four channels hold four consecutive rows of one column. Element (${pi}, ${pj}) is highlighted in both.`);
  svg.innerHTML = body;
  box.replaceChildren(svg);
}

/** The texture as an image: texel (x, y) painted with its r, g, b values (alpha on a grey check). */
function drawImage(canvas, m, n, px, py) {
  const h = Math.ceil(m / 4);
  const s = Math.max(4, Math.min(24, Math.floor(192 / Math.max(n, h))));
  canvas.width = n * s;
  canvas.height = h * s;
  const g = canvas.getContext("2d");
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < n; x++) {
      const v = [0, 1, 2, 3].map((c) => (4 * y + c < m ? value(4 * y + c, x, m, n) : 0));
      g.fillStyle = (x + y) % 2 ? "#ccc" : "#eee";
      g.fillRect(x * s, y * s, s, s);
      g.fillStyle = `rgba(${v.slice(0, 3).map((c) => Math.round(255 * c)).join(",")},${Math.max(0.15, v[3])})`;
      g.fillRect(x * s, y * s, s, s);
    }
  }
  g.strokeStyle = "#d1495b";
  g.lineWidth = 2;
  g.strokeRect(px * s + 1, py * s + 1, s - 2, s - 2);
  canvas.setAttribute("aria-label", `The texture as an image, ${n} by ${h} texels: each texel painted with its red, green and blue channels (rows 4y to 4y+2 of its column; a matrix whose values grow down the rows gives brighter texels lower down), its alpha channel (row 4y+3) as opacity; texel (${px}, ${py}) outlined.`);
}
