// The products benchmark's plot: GFLOPS against n (log-log), end-to-end and resident side by
// side, one curve per texla path and JavaScript float64 from this run, and dashed curves of the
// peers (TF.js, gpu.js) from the last recorded peer run (www/data/peers-swiftshader.json, made by
// `node bench/peers/run.mjs`), and on request dotted curves of the recorded H100 run through
// Dawn (bench/records/h100/dawn/, made by bench/dawn/run-h100.sh). The page never loads the peers
// themselves.

import { MATMUL_PATHS } from "../paths.js";

const PATH_COLORS = ["#d1495b", "#00798c", "#edae49", "#30638e", "#6a4c93", "#2a9d8f", "#e76f51", "#8ac926"];
const PEER_COLORS = ["#7f7f7f", "#a0522d", "#9b5de5", "#4d908e", "#b5838d"];

/** A recorded run (JSON, relative to this module), or null when there is none (it is optional). */
async function loadRecorded(path) {
  try {
    const res = await fetch(new URL(path, import.meta.url));
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

/** The last recorded peer run, or null. */
export const loadRecordedPeers = () => loadRecorded("../data/peers-swiftshader.json");

/**
 * The recorded instruction counts of the thesis's Table 5 (SPIR-V of each function's WGSL kernel,
 * counted natively by naga: `native_bench --instructions`), or null.
 */
export const loadRecordedInstructions = () => loadRecorded("../data/table5-instructions.json");

/** The recorded H100 run through Dawn (texla's paths and TF.js), or null. */
export const loadRecordedH100 = () => loadRecorded("../data/h100-products-dawn.json");

/**
 * Draws `rows` of runBenchmark (this run, on `backend`) and the peers of `recorded` (or null)
 * into `canvas`; sets data-series (curves drawn) and data-peers (peer curves among them); with
 * `h100` (a recorded run of bench/dawn, or null) its curves too, dotted, counted in data-h100.
 */
export function plotProducts(canvas, rows, backend, recorded, h100 = null) {
  const series = [];
  MATMUL_PATHS.forEach((p, i) => {
    const color = PATH_COLORS[i % PATH_COLORS.length];
    const e2e = rows.filter((r) => r[`${p.key}E2E`] > 0).map((r) => [r.n, r[`${p.key}E2E`]]);
    const resident = rows.filter((r) => r[`${p.key}Resident`] > 0).map((r) => [r.n, r[`${p.key}Resident`]]);
    if (e2e.length || resident.length) series.push({ label: `texla ${p.label}, ${backend}`, color, e2e, resident });
  });
  const js = rows.filter((r) => r.js > 0).map((r) => [r.n, r.js]);
  series.push({ label: "JavaScript float64 (one product, in both panels)", color: "#1d2330", e2e: js, resident: js });
  let peers = 0;
  if (recorded?.runs) {
    const names = [...new Set(recorded.runs.filter((r) => r.kind === "peer").map((r) => r.name))];
    names.forEach((name, i) => {
      const runs = recorded.runs.filter((r) => r.name === name).sort((x, y) => x.n - y.n);
      series.push({
        label: `${name} (recorded)`,
        color: PEER_COLORS[i % PEER_COLORS.length],
        dashed: true,
        e2e: runs.filter((r) => r.e2e > 0).map((r) => [r.n, r.e2e]),
        resident: runs.filter((r) => r.resident > 0).map((r) => [r.n, r.resident]),
      });
      peers++;
    });
  }

  let h100Curves = 0;
  for (const name of [...new Set((h100?.matmul ?? []).map((r) => r.path))]) {
    const runs = h100.matmul.filter((r) => r.path === name).sort((x, y) => x.n - y.n);
    series.push({
      label: `${name}, H100 through Dawn (recorded)`,
      color: PEER_COLORS[(peers + h100Curves) % PEER_COLORS.length],
      dotted: true,
      e2e: runs.filter((r) => r.e2eGflops > 0).map((r) => [r.n, r.e2eGflops]),
      resident: runs.filter((r) => r.residentGflops > 0).map((r) => [r.n, r.residentGflops]),
    });
    h100Curves++;
  }

  const ctx = canvas.getContext("2d");
  const w = (canvas.width = 900);
  const h = (canvas.height = 300 + 16 * Math.ceil(series.length / 2) + 46 + (h100Curves ? 16 : 0));
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, w, h);
  ctx.font = "12px system-ui";
  const points = series.flatMap((s) => [...s.e2e, ...s.resident]).filter(([, v]) => v > 0 && Number.isFinite(v));
  if (!points.length) return;
  const ns = points.map(([n]) => n);
  const vs = points.map(([, v]) => v);
  const x0 = Math.log2(Math.min(...ns));
  const x1 = Math.max(Math.log2(Math.max(...ns)), x0 + 1);
  const y0 = Math.floor(Math.log10(Math.min(...vs)));
  const y1 = Math.max(Math.ceil(Math.log10(Math.max(...vs))), y0 + 1);
  const plotH = 260;
  const panels = [
    { title: "end-to-end (upload, product, read-back)", key: "e2e", left: 60 },
    { title: "resident (10 chained products, one read-back)", key: "resident", left: 510 },
  ];
  for (const panel of panels) {
    const pw = 370;
    const X = (n) => panel.left + (pw * (Math.log2(n) - x0)) / (x1 - x0);
    const Y = (v) => 24 + (plotH - 24) * (1 - (Math.log10(v) - y0) / (y1 - y0));
    ctx.fillStyle = "#1d2330";
    ctx.fillText(panel.title, panel.left, 14);
    ctx.strokeStyle = "#ddd";
    ctx.lineWidth = 1;
    ctx.setLineDash([]);
    for (let e = y0; e <= y1; e++) {
      ctx.beginPath();
      ctx.moveTo(panel.left, Y(10 ** e));
      ctx.lineTo(panel.left + pw, Y(10 ** e));
      ctx.stroke();
      ctx.fillStyle = "#444";
      ctx.fillText(e >= 0 ? String(10 ** e) : `1e${e}`, panel.left - 44, Y(10 ** e) + 4);
    }
    for (let e = Math.ceil(x0); e <= Math.floor(x1); e++) {
      ctx.beginPath();
      ctx.moveTo(X(2 ** e), 24);
      ctx.lineTo(X(2 ** e), plotH);
      ctx.stroke();
      ctx.fillText(String(2 ** e), X(2 ** e) - 10, plotH + 14);
    }
    ctx.fillText("n", panel.left + pw / 2, plotH + 28);
    ctx.save();
    ctx.translate(panel.left - 48, plotH / 2 + 40);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText("GFLOPS", 0, 0);
    ctx.restore();
    for (const s of series) {
      const pts = s[panel.key];
      if (!pts.length) continue;
      ctx.strokeStyle = ctx.fillStyle = s.color;
      ctx.lineWidth = 2;
      ctx.setLineDash(s.dashed ? [6, 4] : s.dotted ? [2, 3] : []);
      ctx.beginPath();
      pts.forEach(([n, v], i) => (i ? ctx.lineTo(X(n), Y(v)) : ctx.moveTo(X(n), Y(v))));
      ctx.stroke();
      for (const [n, v] of pts) {
        ctx.beginPath();
        ctx.arc(X(n), Y(v), 3, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
  }
  ctx.setLineDash([]);
  series.forEach((s, i) => {
    const x = 60 + (i % 2) * 450;
    const y = plotH + 50 + 16 * Math.floor(i / 2);
    ctx.strokeStyle = ctx.fillStyle = s.color;
    ctx.setLineDash(s.dashed ? [6, 4] : s.dotted ? [2, 3] : []);
    ctx.beginPath();
    ctx.moveTo(x, y - 4);
    ctx.lineTo(x + 24, y - 4);
    ctx.stroke();
    ctx.fillText(s.label, x + 30, y);
  });
  ctx.setLineDash([]);
  ctx.fillStyle = "#555";
  const notes = recorded
    ? [`Solid: this run (GFLOPS = 2n³ / time). Dashed: peers from the recorded peer run of ${recorded.date.slice(0, 10)}, not measured now:`,
      `${recorded.machine?.summary ?? "unknown machine"}, ${recorded.browser ?? "unknown browser"} (www/data/peers-swiftshader.json).`]
    : ["Solid: this run (GFLOPS = 2n³ / time). No recorded peer run was found (www/data/peers-swiftshader.json):", "run node bench/peers/run.mjs to make one."];
  if (h100Curves) {
    const env = h100.env ?? {};
    notes.push(`Dotted: recorded on an NVIDIA H100 through Dawn (${env.date?.slice(0, 10) ?? "date unknown"}), texla and TF.js in one process (www/data/h100-products-dawn.json).`);
  }
  notes.forEach((t, i) => ctx.fillText(t, 10, h - 24 - 16 * (notes.length - 2) + 16 * i));
  canvas.dataset.series = String(series.length);
  canvas.dataset.peers = String(peers);
  canvas.dataset.h100 = String(h100Curves);
}
