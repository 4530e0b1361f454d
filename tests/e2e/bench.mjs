// Runs the page's benchmark mode on both backends in headless Chromium and prints a table and
// JSON. Usage: node tests/e2e/bench.mjs [sizes, default 64,128,256,512,1024]
import { serve, launch } from "./browser.mjs";

const sizes = process.argv[2] ?? "64,128,256,512,1024";
const server = await serve();
const browser = await launch();
const reports = [];
try {
  for (const backend of ["webgpu", "webgl2"]) {
    const page = await browser.newPage();
    page.on("console", (m) => m.type() === "error" && console.error(`[${backend}] ${m.text()}`));
    await page.goto(`${server.url}?backend=${backend}&bench&sizes=${sizes}`);
    let last = "";
    while (!(await page.$("#bench[data-done]"))) {
      const fatal = await page.$eval("#fatal", (e) => (e.hidden ? "" : e.textContent));
      const failed = await page.$eval("#bench-status", (e) => e.querySelector(".error")?.textContent ?? "");
      if (fatal || failed) throw new Error(`${backend}: ${fatal || failed}`);
      const status = await page.textContent("#bench-status");
      if (status !== last) console.error(`[${backend}] ${(last = status)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    reports.push(JSON.parse(await page.textContent("#bench-json")));
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}

const pad = (s, w) => String(s).padStart(w);
const cols = ["squareE2E", "squareResident", "mulE2E", "mulResident", "js"];
console.log(`GFLOPS (2n^3 per product), headless Chromium, ${new Date().toISOString()}`);
console.log(["backend", "n", "square e2e", "square resident", "mul e2e", "mul resident", "JS float64", "best/JS"].map((h, i) => pad(h, i ? 15 : 8)).join(" "));
for (const r of reports) {
  for (const row of r.rows) {
    const best = Math.max(row.squareResident, row.mulResident) / row.js;
    console.log([pad(r.backend, 8), pad(row.n, 15), ...cols.map((c) => pad(row[c].toFixed(3), 15)), pad(best.toFixed(1) + "x", 15)].join(" "));
  }
}
console.log(JSON.stringify(reports));
