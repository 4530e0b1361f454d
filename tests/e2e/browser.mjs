// Shared by the end-to-end test and the benchmark driver: serves the repository root on a free
// localhost port and opens Debian's Chromium headless with both WebGPU and WebGL2 available.
import http from "node:http";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json" };

/**
 * Serves the repository root; resolves to {url, close}. `mounts` maps a URL prefix such as
 * "/pkg/" to another folder (the peer benchmark measures another build's pkg/ that way).
 */
export async function serve({ mounts = {} } = {}) {
  const server = http.createServer(async (req, res) => {
    const rel = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const mount = Object.keys(mounts).find((prefix) => rel.startsWith(prefix));
    const base = mount ? path.resolve(mounts[mount]) : root;
    const inside = mount ? rel.slice(mount.length - 1) : rel;
    const file = path.join(base, inside.endsWith("/") ? `${inside}index.html` : inside);
    if (!file.startsWith(base)) return res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

/**
 * Headless Chromium from Debian, with WebGPU switched on (SwiftShader here) unless `webgpu` is
 * false; `webgl` false switches WebGL off too, to see the page with no GPU backend at all.
 */
export function launch({ webgpu = true, webgl = true } = {}) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      ...(webgpu ? ["--enable-unsafe-webgpu"] : []),
      ...(webgl ? [] : ["--disable-webgl"]),
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
}

/**
 * Runs `fn` (a function evaluated in the page, with `arg` plus `backend`) in a fresh page of
 * the served repository for each backend, and resolves to what each returned, in order.
 * `init`, if given, is a script run in each page before its own (Playwright's addInitScript).
 */
export async function onEachBackend(fn, arg = {}, backends = ["webgpu", "webgl2"], init = null) {
  const srv = await serve();
  const browser = await launch();
  const out = [];
  try {
    for (const backend of backends) {
      const page = await browser.newPage();
      if (init) await page.addInitScript(init);
      await page.goto(`${srv.url}www/style.css`);
      out.push(await page.evaluate(fn, { ...arg, backend }));
      await page.close();
    }
  } finally {
    await browser.close();
    srv.close();
  }
  return out;
}

/** Opens `server`'s page with `query` in `browser`, collecting console errors, failed and
 * off-origin requests, and violations of the page's Content-Security-Policy into `problems`.
 * `init`, if given, is a script run in the page before its own (Playwright's addInitScript). */
export async function openPage(browser, server, query, init = null) {
  const page = await browser.newPage();
  if (init) await page.addInitScript(init);
  const problems = [];
  await page.addInitScript(() => document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  page.on("request", (r) => !r.url().startsWith(server.url) && !r.url().startsWith("data:") && problems.push(`off-origin request: ${r.url()}`));
  await page.goto(`${server.url}${query}`);
  return { page, problems };
}

/** One server and one browser shared by the tests of a file: node:test's `before` (passed in,
 * so that the benchmark scripts importing this file need not load node:test) starts them and
 * `after` closes them. Read `shared.server` and `shared.browser` inside the tests. */
export function sharedBrowser(before, after) {
  const shared = {};
  before(async () => {
    shared.server = await serve();
    shared.browser = await launch();
  });
  after(async () => {
    await shared.browser?.close();
    shared.server?.close();
  });
  return shared;
}

/**
 * Presses the wall's Start in `page` and resolves to the milliseconds until its first frame is
 * shown (the stats get a frame number), then presses it again (pause); the start-up test and
 * bench/browser/startup.mjs time the same thing.
 */
export async function firstWallFrame(page) {
  const ms = await page.evaluate(() => new Promise((resolve) => {
    const stats = document.getElementById("wall-stats");
    const t0 = performance.now();
    new MutationObserver((_, o) => {
      if (stats.dataset.frame) { o.disconnect(); resolve(performance.now() - t0); }
    }).observe(stats, { attributes: true });
    document.getElementById("wall-run").click();
  }));
  await page.click("#wall-run");
  return ms;
}

/** The two backends every end-to-end test runs on. */
export const BACKENDS = ["webgpu", "webgl2"];

/**
 * Registers a test once per backend, as `name (webgpu)` and `name (webgl2)`: `test` is
 * node:test's (passed in, so that the benchmark scripts importing this file need not load
 * node:test), `fn(backend)` the test's body. A backend that is missing fails its test.
 */
export function testOnEachBackend(test, name, fn, options = {}) {
  for (const backend of BACKENDS) test(`${name} (${backend})`, options, () => fn(backend));
}
