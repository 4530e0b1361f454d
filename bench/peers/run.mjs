// The peer benchmark: texla (each of its matmul paths, on WebGPU and WebGL2), TF.js (WebGL and
// WebGPU backends), jax-js (WebGPU, WebGL), ONNX Runtime Web (WebGPU, WebGL and wasm EPs), gpu.js
// (WebGL2) and JavaScript float64 multiply the same n x n matrices in one headless Chromium run
// (one page per n). Prints one table (end-to-end and resident GFLOPS,
// max relative error against float64, peak GPU bytes, texla's best over the best peer) and
// writes the results JSON that the page's products plot overlays.
//
//   cd bench/peers && npm ci --ignore-scripts     # once: the peers, for this benchmark only
//   node bench/peers/run.mjs [--sizes 128,256,512,1024,2048] [--budget 150] [--out FILE] [--only a,b]
//                            [--pkg DIR]   (another build's pkg/, served as /pkg/)
//                            [--rounds R]  (R rounds at each n, the entries taking turns: round r
//                                           starts at entry r; each entry's median over rounds)
//                            [--again-within F]  (rounds after the first run texla's entries and
//                                           the peers within F (default 0.5) of the best peer's
//                                           GFLOPS in the first; a slower peer is measured once)
//
// It needs pkg/ built (bash tools/build.sh) and tests/e2e's playwright-core
// (bash tools/test.sh installs it, or `cd tests/e2e && npm ci`). --budget caps the predicted
// seconds of one entry at one n (predicted from its time at the previous n): past it the
// resident chain is skipped, then the warm-up, then the entry, and the table says so.
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve, launch } from "../../tests/e2e/browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const sizes = arg("sizes", "128,256,512,1024,2048").split(",").map(Number);
const budget = Number(arg("budget", "150"));
const out = arg("out", path.join(here, "../../www/data/peers-swiftshader.json"));
const only = arg("only", "")
  .split(",")
  .filter(Boolean);
const CHAIN = 10;
const rounds = Number(arg("rounds", "1"));
const againWithin = Number(arg("again-within", "0.5"));
const JS = "JavaScript float64";

if (sizes.some((s) => !Number.isInteger(s) || s < 1 || s > 4096)) throw new Error(`bad --sizes ${arg("sizes")}`);

/** What to run for one entry at order n, from its time per product at the last n it ran. */
function plan(name, n, last) {
  const reps = n <= 256 ? 3 : 1;
  if (!last) return { warm: 1, reps, chain: CHAIN, resident: name !== JS, note: "" };
  // Seconds per product, predicted: end-to-end, and inside a resident chain where measured.
  const scale = (n / last.n) ** 3;
  const t = (last.e2eMs / 1000) * scale;
  const r = ((last.residentMsPerProduct ?? last.e2eMs) / 1000) * scale;
  const s = (x) => `${Math.round(x)} s`;
  if (name === JS) return t * (1 + reps) <= budget ? { warm: 1, reps, note: "" } : { warm: 0, reps: 1, note: "no warm-up" };
  if (t * (1 + reps) + r * (1 + CHAIN * reps) <= budget) return { warm: 1, reps, chain: CHAIN, resident: true, note: "" };
  const why = `resident skipped (predicted ${s(t * 2 + r * (1 + CHAIN))} > budget ${budget} s)`;
  if (t * 2 <= budget) return { warm: 1, reps: 1, chain: CHAIN, resident: false, note: why };
  if (t <= budget) return { warm: 0, reps: 1, chain: CHAIN, resident: false, note: `cold (no warm-up: includes shader compilation); ${why}` };
  return { skip: true, note: `skipped (predicted ${s(t)} a product > budget ${budget} s)` };
}

const loadBefore = os.loadavg();
// --pkg DIR: measure another build's pkg/ (say, a branch built elsewhere) with this benchmark.
const pkg = arg("pkg", "");
const server = await serve(pkg ? { mounts: { "/pkg/": pkg } } : {});
const browser = await launch();
const runs = [];
const unknownFormats = new Set();
const notBuilt = new Set(); // paths of www/paths.js that this pkg/ does not have
const last = {};
const started = Date.now();
try {
  for (const n of sizes) {
    const page = await browser.newPage();
    page.on("console", (m) => m.type() === "error" && console.error(`[n=${n}] console: ${m.text()}`));
    page.on("pageerror", (e) => console.error(`[n=${n}] page error: ${e.message}`));
    page.on("request", (r) => !r.url().startsWith(server.url) && !r.url().startsWith("data:") && console.error(`off-origin request: ${r.url()}`));
    await page.goto(`${server.url}bench/peers/index.html`);
    await page.waitForFunction(() => window.benchReady);
    await page.evaluate(() => window.benchReady);
    const { entries, missing } = await page.evaluate((order) => window.bench.setup(order), n);
    missing.forEach((m) => notBuilt.add(m));
    const names = [...entries.map((e) => e.name), JS].filter((name) => !only.length || only.includes(name));
    // Round 0 runs each entry's plan (warm-up included); rounds 1.. run each once more (no
    // warm-up, one rep), round r starting at entry r, so that no entry always follows the same one.
    const atN = new Map();
    // After round 0: texla's entries, and the peers near the best peer (e2e or resident).
    const again = (name) => {
      const row = atN.get(name);
      if (!row?.e2eAll) return false; // skipped or failed in round 0
      if (row.kind !== "peer") return true;
      const peers = [...atN.values()].filter((r) => r.kind === "peer" && r.e2eAll);
      const near = (key) => (row[key] ?? 0) >= againWithin * Math.max(...peers.map((r) => r[key] ?? 0));
      return near("e2e") || near("resident");
    };
    for (let round = 0; round < rounds; round++) {
      const order = names.slice(round % names.length).concat(names.slice(0, round % names.length));
      for (const name of order) {
        const entry = entries.find((e) => e.name === name) ?? { name, kind: "js", backend: "cpu" };
        if (round > 0 && !again(name)) continue;
        const p = round === 0 ? plan(name, n, last[name]) : { ...atN.get(name).plan, warm: 0, reps: 1 };
        const base = { n, name, kind: entry.kind, backend: entry.backend, note: p.note };
        if (p.skip) {
          atN.set(name, { ...base, e2e: null, resident: null });
          console.error(`n = ${n}: ${name}: ${p.note}`);
          continue;
        }
        const t0 = Date.now();
        try {
          const r = await page.evaluate(([nm, pl]) => window.bench.run(nm, pl), [name, p]);
          const row = atN.get(name) ?? { ...base, ...r, chain: p.resident ? p.chain : null, warm: p.warm, reps: p.reps, plan: p, e2eAll: [], residentAll: [], maxRelAll: [] };
          row.e2eAll.push(r.e2e);
          row.residentAll.push(r.resident);
          row.maxRelAll.push(r.maxRel);
          atN.set(name, row);
        } catch (e) {
          if (round === 0) atN.set(name, { ...base, e2e: null, resident: null, note: `failed: ${e.message.split("\n")[0]}` });
          else atN.get(name).note += ` round ${round} failed: ${e.message.split("\n")[0]}`;
        }
        console.error(`n = ${n}: ${name} round ${round} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
    }
    for (const name of names) {
      const row = atN.get(name);
      if (!row) continue;
      if (row.e2eAll) {
        // The medians over rounds; every round's figure is kept.
        const med = (v) => {
          const x = v.filter((y) => y !== null).sort((p, q) => p - q);
          return x.length ? (x.length % 2 ? x[x.length >> 1] : (x[x.length / 2 - 1] + x[x.length / 2]) / 2) : null;
        };
        row.e2e = med(row.e2eAll);
        row.resident = med(row.residentAll);
        const errs = row.maxRelAll.filter((v) => typeof v === "number");
        row.maxRel = errs.length ? Math.max(...errs) : undefined;
        row.e2eMs = (2 * n ** 3) / (row.e2e * 1e6);
        row.residentMs = row.resident === null ? null : (row.chain * 2 * n ** 3) / (row.resident * 1e6);
        row.rounds = row.e2eAll.length;
        delete row.plan;
        last[name] = { n, e2eMs: row.e2eMs, residentMsPerProduct: row.residentMs === null ? null : row.residentMs / row.chain };
      }
      runs.push(row);
    }
    for (const f of await page.evaluate(() => window.bench.unknownFormats())) unknownFormats.add(f);
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}

// ---- the table ----
const best = (rs, key) => rs.filter((r) => r[key] > 0).reduce((m, r) => (m && m[key] >= r[key] ? m : r), null);
const ratios = sizes.map((n) => {
  const at = runs.filter((r) => r.n === n);
  const ratio = (key) => {
    const t = best(at.filter((r) => r.kind === "texla"), key);
    const p = best(at.filter((r) => r.kind === "peer"), key);
    return { texla: t?.name ?? null, texlaGflops: t?.[key] ?? null, peer: p?.name ?? null, peerGflops: p?.[key] ?? null, ratio: t && p ? t[key] / p[key] : null };
  };
  return { n, e2e: ratio("e2e"), resident: ratio("resident") };
});

const cpus = os.cpus();
const machine = {
  cpu: cpus[0]?.model ?? "unknown",
  cores: cpus.length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  os: `${os.type()} ${os.release()}`,
};
machine.summary = `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}`;
// Other work on the machine slows every entry: the load averages say how busy it was.
machine.loadAverage = { before: loadBefore.map((v) => +v.toFixed(2)), after: os.loadavg().map((v) => +v.toFixed(2)) };
const browserName = `headless Chromium ${browser.version?.() ?? ""}`.trim();

const fmt = (v, d = 3) => (v === null || v === undefined ? "-" : v.toFixed(d));
const mib = (v) => (v === null || v === undefined ? "-" : (v / 2 ** 20).toFixed(2));
const cols = [["n", 5], ["path / peer", 26], ["e2e GFLOPS", 11], ["resid. GFLOPS", 13], ["max rel err", 11], ["err/bound", 9], ["peak MiB", 9], ["pool peak", 9], ["note", 0]];
const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? String(c) : i === 1 ? String(c).padEnd(cols[i][1]) : String(c).padStart(cols[i][1]))).join("  ");
console.log(`Peer benchmark, ${new Date().toISOString()}, ${browserName}, ${machine.summary}`);
console.log(`load average (1, 5, 15 min) before ${machine.loadAverage.before.join(", ")}, after ${machine.loadAverage.after.join(", ")}`);
console.log(`end-to-end: upload A and B, one product, read back; resident: ${CHAIN} chained products X <- X·B (X·X for square) from resident A, B, one read-back.`);
if (rounds > 1) console.log(`${rounds} rounds at each n, the entries taking turns (round r starts at entry r); GFLOPS are medians over rounds, max rel err the largest; peers below ${againWithin} of the best peer in round 0 ran once.`);
console.log("peak MiB: most GPU bytes the entry held at once, counted at the WebGL/WebGPU API (bench/gpu-bytes.js); pool peak: texla's own memory().peakBytes.");
console.log(line(cols.map((c) => c[0])));
for (const n of sizes) {
  for (const r of runs.filter((x) => x.n === n)) {
    console.log(line([n, r.name, fmt(r.e2e), fmt(r.resident), r.maxRel === undefined ? "-" : r.maxRel.toExponential(2), fmt(r.boundRatio, 4), mib(r.peakBytes), mib(r.poolPeakBytes), r.note ?? ""]));
  }
  const q = ratios.find((x) => x.n === n);
  const say = (k) => (q[k].ratio === null ? "n/a" : `${q[k].ratio.toFixed(2)}x (${q[k].texla} ${fmt(q[k].texlaGflops)} / ${q[k].peer} ${fmt(q[k].peerGflops)})`);
  console.log(`${String(n).padStart(5)}  texla best / best peer: end-to-end ${say("e2e")}; resident ${say("resident")}`);
}
if (notBuilt.size) console.log(`paths listed in www/paths.js but not in this pkg/, not measured: ${[...notBuilt].join(", ")}`);
if (unknownFormats.size) console.log(`formats of unknown size (counted as 0 bytes): ${[...unknownFormats].join("; ")}`);
const at1024 = ratios.find((x) => x.n === 1024);
if (at1024) {
  const met = (k) => (at1024[k].ratio === null ? "not measured" : at1024[k].ratio >= 3 ? `met (${at1024[k].ratio.toFixed(2)}x)` : `MISSED (${at1024[k].ratio.toFixed(2)}x)`);
  console.log(`target at n = 1024, texla's best at least 3x the best peer: end-to-end ${met("e2e")}, resident ${met("resident")}`);
  // The default product (what `gpu.matmul` runs on that backend) at least 2x the best peer.
  for (const backend of ["webgpu", "webgl2"]) {
    const d = runs.find((r) => r.n === 1024 && r.name === `texla ${backend} matmul`);
    const vs = (k) => {
      const peer = at1024[k].peerGflops;
      if (!peer || d?.[k] == null) return "not measured";
      const x = d[k] / peer;
      return `${x >= 2 ? "met" : "MISSED"} (${x.toFixed(2)}x)`;
    };
    if (d) console.log(`target at n = 1024, the default matmul on ${backend} at least 2x the best peer: end-to-end ${vs("e2e")}, resident ${vs("resident")}`);
  }
}
console.log(`total ${((Date.now() - started) / 1000).toFixed(0)} s`);

const results = { date: new Date().toISOString(), machine, browser: browserName, pkg: pkg || "pkg/", sizes, budget, chain: CHAIN, rounds, runs, ratios, notBuilt: [...notBuilt], unknownFormats: [...unknownFormats] };
await writeFile(out, `${JSON.stringify(results, null, 1)}\n`);
console.log(`wrote ${path.relative(process.cwd(), out)}`);
