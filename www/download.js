// Downloads, made here in the page (a Blob and an <a download>, no network): every results
// table as CSV, every plot or picture as PNG (a canvas) or SVG (an svg). `initDownloads` puts a
// small bar of buttons after each table, canvas and svg of the page, now and whenever a section
// draws a new one (a MutationObserver); `downloadCsv` is for data that is no table (the wall's
// per-frame stats).

/** Saves `blob` as the file `name`. */
export function saveBlob(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** One CSV field: quoted where it holds a comma, a quote or a line break. */
const field = (v) => {
  const s = String(v ?? "");
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** Rows (arrays of values) as CSV text, one line a row. */
export function csv(rows) {
  return rows.map((row) => row.map(field).join(",")).join("\r\n") + "\r\n";
}

/** Saves `rows` as the CSV file `name`. */
export function downloadCsv(name, rows) {
  saveBlob(name, new Blob([csv(rows)], { type: "text/csv" }));
}

/** A table's rows as arrays of cell texts, a cell spanning columns followed by empty ones so
 * that the columns stay in line (row spans are rare here and read as they stand). */
export function tableRows(table) {
  return [...table.rows].map((tr) => [...tr.cells].flatMap((cell) => [cell.textContent.trim().replace(/\s+/g, " "), ...Array(Math.max(0, cell.colSpan - 1)).fill("")]));
}

/** A file name for what `el` shows: its id, else its nearest ancestor's with an id. */
function nameOf(el, what) {
  const owner = el.id ? el : el.parentElement?.closest("[id]");
  const base = owner?.id || "texla";
  return owner === el ? base : `${base}-${what}`;
}

/** The bar of download buttons for `el` (a table, a canvas or an svg). */
function bar(el) {
  const button = (text, title, save) => {
    const b = Object.assign(document.createElement("button"), { type: "button", textContent: text, title });
    b.dataset.free = "";
    b.addEventListener("click", save);
    return b;
  };
  const box = document.createElement("div");
  box.className = "downloads";
  box.setAttribute("role", "group");
  if (el instanceof HTMLTableElement) {
    box.setAttribute("aria-label", "download this table");
    box.append(button("CSV", "download this table as CSV", () => downloadCsv(`${nameOf(el, "table")}.csv`, tableRows(el))));
  } else if (el instanceof HTMLCanvasElement) {
    box.setAttribute("aria-label", "download this picture");
    box.append(button("PNG", "download this picture as PNG", () => el.toBlob((blob) => blob && saveBlob(`${nameOf(el, "picture")}.png`, blob), "image/png")));
  } else {
    box.setAttribute("aria-label", "download this picture");
    box.append(button("SVG", "download this picture as SVG", () => {
      const svg = el.cloneNode(true);
      svg.setAttribute("xmlns", "http://www.w3.org/2000/svg");
      const text = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(svg)}`;
      saveBlob(`${nameOf(el, "picture")}.svg`, new Blob([text], { type: "image/svg+xml" }));
    }));
  }
  return box;
}

/** Whether `el` gets a bar: tables, and canvases and svgs that are pictures (not the wall's
 * live view, drawn by the GPU, nor an svg inside another or in a button). */
function wanted(el) {
  if (el.closest(".downloads, button, .wall-view, #alerts")) return false;
  if (el instanceof SVGElement) return el.parentElement && !el.parentElement.closest("svg");
  return true;
}

/** Puts a bar with `el` unless it has one: in a table's caption (made if there is none, and
 * made again when the table's rows are replaced), after a canvas or an svg. */
function attach(el) {
  if (!wanted(el)) return;
  if (el instanceof HTMLTableElement) {
    if (el.caption?.querySelector(":scope > .downloads")) return;
    const caption = el.caption ?? Object.assign(el.createCaption(), { className: "downloads-caption" });
    caption.append(" ", bar(el));
  } else if (el.nextElementSibling?.className !== "downloads") {
    el.after(bar(el));
  }
}

/** A download bar with every table, canvas and svg under `root`, now and from now on. */
export function initDownloads(root = document.querySelector("main")) {
  const scan = (node) => {
    if (!(node instanceof Element)) return;
    if (node.matches("table, canvas, svg")) attach(node);
    node.querySelectorAll("table, canvas, svg").forEach(attach);
  };
  scan(root);
  new MutationObserver((records) => records.forEach((r) => {
    r.addedNodes.forEach(scan);
    // A table whose rows were replaced (innerHTML) lost its caption and bar.
    const table = r.target instanceof Element && r.target.closest("table");
    if (table) attach(table);
  })).observe(root, { childList: true, subtree: true });
}
