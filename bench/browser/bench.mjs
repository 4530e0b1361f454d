// Runs the page's benchmark mode on both backends in headless Chromium and prints a table and
// JSON. Usage: node bench/browser/bench.mjs [products|functions|matvec|solvers|lcp] [sizes]
import { serve, launch } from "../../tests/e2e/browser.mjs";

const kind = process.argv[2] ?? "products";
const sizes = process.argv[3] ?? "";
const server = await serve();
const browser = await launch();
const reports = [];
try {
  for (const backend of ["webgpu", "webgl2"]) {
    const page = await browser.newPage();
    page.on("console", (m) => m.type() === "error" && console.error(`[${backend}] ${m.text()}`));
    await page.goto(`${server.url}?backend=${backend}&bench=${kind}${sizes ? `&sizes=${sizes}` : ""}`);
    let last = "";
    const started = Date.now();
    while (!(await page.$("#bench[data-done]"))) {
      const fatal = await page.$eval("#fatal", (e) => (e.hidden ? "" : e.textContent));
      const failed = await page.$eval("#bench-status", (e) => e.querySelector(".error")?.textContent ?? "");
      if (fatal || failed) throw new Error(`${backend}: ${fatal || failed}`);
      if (Date.now() - started > 25 * 60 * 1000) throw new Error(`${backend}: no result after 25 minutes`);
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
const print = (cells) => console.log(cells.map((c, i) => pad(c, i ? 15 : 8)).join(" "));
console.log(`${kind}, headless Chromium, ${new Date().toISOString()}`);
if (kind === "functions") {
  print(["backend", "function", "GPU Melem/s", "JS Melem/s", "GPU/JS"]);
  for (const r of reports) for (const row of r.rows) print([r.backend, row.name, (row.gpu / 1e6).toFixed(1), (row.js / 1e6).toFixed(1), `${(row.gpu / row.js).toFixed(1)}x`]);
} else if (kind === "solvers") {
  print(["backend", "solver", "n", "iterations", "GPU ms/it", "JS ms/it", "JS/GPU", "passes/it"]);
  for (const r of reports) for (const row of r.rows) print([r.backend, row.solver, row.n, row.iterations, row.gpuMs.toFixed(3), row.jsMs.toFixed(3), `${(row.jsMs / row.gpuMs).toFixed(2)}x`, row.passes.toFixed(1)]);
} else if (kind === "lcp") {
  print(["backend", "n", "iterations", "path", "GPU ms", "error", "JS ms", "JS/GPU"]);
  for (const r of reports) for (const row of r.rows) print([r.backend, row.n, row.iterations, row.path.split(",")[0], row.ms.toFixed(2), row.error.toExponential(1), row.jsMs.toFixed(1), `${(row.jsMs / row.ms).toFixed(1)}x`]);
} else if (kind === "matvec") {
  print(["backend", "n", "blocked GFLOPS", "naive GFLOPS", "compute GFLOPS", "JS GFLOPS", "blocked/naive"]);
  for (const r of reports) for (const row of r.rows) print([r.backend, row.n, row.blocked.toFixed(3), row.naive.toFixed(3), row.compute?.toFixed(3) ?? "-", row.js.toFixed(3), `${(row.blocked / row.naive).toFixed(1)}x`]);
} else {
  // Columns from the rows themselves: every path of www/paths.js that ran, end-to-end and resident.
  const keys = Object.keys(reports[0]?.rows[0] ?? {}).filter((k) => /(E2E|Resident)$/.test(k));
  const peaks = Object.keys(reports[0]?.rows[0] ?? {}).filter((k) => k.endsWith("Peak"));
  print(["backend", "n", ...keys, ...peaks.map((k) => `${k} MiB`), "JS float64", "best/JS"]);
  for (const r of reports) {
    for (const row of r.rows) {
      const bestResident = Math.max(...keys.filter((k) => k.endsWith("Resident")).map((k) => row[k] ?? 0));
      print([r.backend, row.n, ...keys.map((k) => row[k]?.toFixed(3) ?? "-"), ...peaks.map((k) => (row[k] === null ? "-" : (row[k] / 2 ** 20).toFixed(2))), row.js.toFixed(3), `${(bestResident / row.js).toFixed(1)}x`]);
    }
  }
}
console.log(JSON.stringify(reports));
