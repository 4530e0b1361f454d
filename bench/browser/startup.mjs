// Start-up on each backend (issue 36 item 7): from the page's load to its first complete result
// (the square's kernels table done), from pressing the wall's Start to its first frame, and the
// NMF lab's longest main-thread task on its first run (issue 33). Each a fresh browser, so
// nothing is cached between runs. Run from the repository root after `bash tools/build.sh`:
//
//   node bench/browser/startup.mjs [runs=3] [backends=webgpu,webgl2] [--no-nmf] [--root=DIR]
//
// `--root=DIR` serves another copy of the page (index.html, www/, pkg/), such as an earlier
// commit's, to compare. Start is pressed once the first result is shown and the wall's status
// no longer says its shaders are being built (as a reader would, reading the first result).
// Prints one line per run and the medians, with the machine's load (`uptime`).
import { execSync } from "node:child_process";
import { firstWallFrame, serve, launch } from "../../tests/e2e/browser.mjs";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const runs = Number(args[0] ?? 3);
const backends = (args[1] ?? "webgpu,webgl2").split(",");
const nmf = !process.argv.includes("--no-nmf");
const root = process.argv.find((a) => a.startsWith("--root="))?.slice("--root=".length);

/** Records, in the page, when each watched selector first matches (ms since the page's load). */
function watch() {
  window.startup = {};
  const selectors = {
    compiling: "[data-compiling]",
    firstResult: "#square-result-summary",
    kernels: "#square-result-kernels[data-done]",
  };
  const look = () => {
    for (const [name, sel] of Object.entries(selectors)) {
      if (!(name in window.startup) && document.querySelector(sel)) window.startup[name] = performance.now();
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true });
  window.longTasks = [];
  new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => ({ start: e.startTime, ms: e.duration })))).observe({ type: "longtask", buffered: true });
}

async function once(server, backend) {
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.addInitScript(watch);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}?backend=${backend}`);
    await page.waitForSelector("#square-result-kernels[data-done]", { timeout: 120_000 });
    const marks = await page.evaluate(() => window.startup);
    const loadTasks = await page.evaluate(() => window.longTasks.map((t) => Math.round(t.ms)));
    const compute = await page.$$eval("#square-result-summary tr", (trs) => trs.map((tr) => tr.textContent).find((t) => t.startsWith("GPU compute")));
    await page.waitForSelector("#wall-status:not([data-compiling])", { timeout: 120_000 });
    const wallReady = await page.evaluate(() => performance.now());
    // The wall: Start, then its first frame.
    const wall = await firstWallFrame(page);
    let lab = null;
    if (nmf) {
      for (const [id, v] of [["images", "512"], ["k", "72"], ["iterations", "4"], ["every", "2"]]) await page.fill(`#nmf-${id}`, v);
      const start = await page.evaluate(() => performance.now());
      await page.click("#nmf-form button[type=submit]");
      await page.waitForSelector("#nmf-summary", { timeout: 120_000 });
      const tasks = await page.evaluate((s) => window.longTasks.filter((t) => t.start >= s).map((t) => Math.round(t.ms)), start);
      lab = Math.max(0, ...tasks);
    }
    return { ...marks, wall, wallReady, lab, loadLongest: Math.max(0, ...loadTasks), compute };
  } finally {
    await browser.close();
  }
}

const median = (xs) => {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : null;
};
const server = await serve(root ? { mounts: { "/": root } } : {});
console.log(`load: ${execSync("uptime").toString().trim()}`);
for (const backend of backends) {
  const all = [];
  for (let r = 0; r < runs; r++) {
    const m = await once(server, backend);
    all.push(m);
    const f = (v) => (v == null ? "-" : Math.round(v));
    console.log(`${backend} run ${r + 1}: compiling shown ${f(m.compiling)} ms, first result ${f(m.firstResult)} ms, kernels table ${f(m.kernels)} ms, wall ready ${f(m.wallReady)} ms, its first frame ${f(m.wall)} ms after Start, NMF lab longest task ${f(m.lab)} ms, load's longest task ${m.loadLongest} ms; ${m.compute}`);
  }
  const med = (k) => Math.round(median(all.map((m) => m[k])));
  console.log(`${backend} medians of ${runs}: first result ${med("firstResult")} ms, kernels table ${med("kernels")} ms, wall first frame ${med("wall")} ms, NMF lab longest task ${nmf ? med("lab") : "-"} ms`);
}
console.log(`load: ${execSync("uptime").toString().trim()}`);
server.close();
