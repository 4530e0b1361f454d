// texla as an npm user gets it: `npm pack` of pkg/ (built and finished by tools/setup.sh's
// build_pkg) installed, offline, into an empty project, then imported
// - from Node with `import init, { Gpgpu } from "texla"`, no global set, WebGPU from npm
//   `webgpu` (Dawn; SwiftShader here): a product against float64, a solver, 60 wall frames, and
//   the same product on a GPUDevice handed over;
// - from a plain page with an import map (no bundler), on both backends.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import zlib from "node:zlib";
import { launch, serve, testOnEachBackend } from "./browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, "../../pkg");
let app; // the empty project texla is installed into
let tarball;

before(() => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "texla-package-"));
  const packed = JSON.parse(execFileSync("npm", ["pack", pkg, "--json", "--pack-destination", tmp], { encoding: "utf8" }));
  tarball = { file: path.join(tmp, packed[0].filename), files: packed[0].files.map((f) => f.path) };
  app = path.join(tmp, "app");
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball.file], { cwd: app, stdio: "pipe" });
});

after(() => fs.rmSync(path.dirname(app), { recursive: true, force: true }));

test("the tarball holds the ESM entries, types, the optimised wasm, README and both licences", () => {
  for (const f of ["package.json", "texla.js", "node.js", "texla.d.ts", "texla_bg.wasm", "README.md", "LICENSE-MIT", "LICENSE-APACHE"]) {
    assert.ok(tarball.files.includes(f), `${f} is in the tarball (${tarball.files.join(", ")})`);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(app, "node_modules/texla/package.json"), "utf8"));
  assert.equal(manifest.type, "module");
  assert.deepEqual(manifest.exports["."], { types: "./texla.d.ts", node: "./node.js", default: "./texla.js" });
  assert.equal(manifest.license, "MIT OR Apache-2.0");
  assert.ok(!("repository" in manifest), "no placeholder repository");
  const wasm = fs.readFileSync(path.join(app, "node_modules/texla/texla_bg.wasm"));
  const gzip = zlib.gzipSync(wasm, { level: 9 }).length;
  // The package's size targets: build_pkg's wasm is 1,083,520 bytes, 428,427 gzipped on
  // 2026-11-28 (docs/performance.md, "The package"); without wasm-opt or the size profile it is
  // 1.5-2.0 MB.
  assert.ok(wasm.length <= 1_200_000 && gzip <= 450_000, `the wasm is ${wasm.length} bytes, ${gzip} gzipped: at most 1.2 MB and 450 KB (are wasm-opt and build_pkg's size profile on?)`);
});

/** The Node script the test runs in the installed project: what a Node user writes. */
const NODE_SCRIPT = `
import init, { Gpgpu } from "texla";
import { create } from ${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve("webgpu")).href)};
const globalsBefore = Object.getOwnPropertyNames(globalThis).sort().join();
await init();
const out = {};
const maxError = (got, want) => got.reduce((m, v, i) => Math.max(m, Math.abs(v - want[i])), 0);
async function product(gpu) {
  const [n, k, m] = [37, 29, 23];
  const a = Float32Array.from({ length: n * k }, (_, i) => Math.sin(i));
  const b = Float32Array.from({ length: k * m }, (_, i) => Math.cos(3 * i));
  const want = new Float64Array(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) {
    let s = 0;
    for (let p = 0; p < k; p++) s += a[i * k + p] * b[p * m + j];
    want[i * m + j] = s;
  }
  const c = await gpu.matmul(gpu.upload(a, n, k), gpu.upload(b, k, m)).read();
  return maxError(c, want);
}
const gpuApi = create([]);
const gpu = await Gpgpu.create("webgpu", { gpu: gpuApi });
out.backend = gpu.backend;
out.adapter = gpu.capabilities().adapter;
out.productError = await product(gpu);
const p = Gpgpu.problem("poisson2d", 8, 1);
const s = await gpu.cg(gpu.upload(p.a, p.n, p.n), gpu.upload(p.b, p.n, 1), { tol: 1e-5, maxIter: 500 });
const x = await s.x.read();
out.cg = { converged: s.converged, iterations: s.iterations, error: maxError(x, p.x) / Math.max(...p.x.map(Math.abs)) };
const wall = gpu.wall(1, 1);
const start = wall.positions();
for (let f = 0; f < 60; f++) await wall.step();
const end = wall.positions();
out.wall = { cubes: start.length / 3, finite: end.every(Number.isFinite), moved: maxError(end, start) };
gpu.free();
const device = await (await gpuApi.requestAdapter()).requestDevice();
const shared = await Gpgpu.create("webgpu", { device });
out.sharedProductError = await product(shared);
shared.free();
out.deviceAlive = device.createBuffer({ size: 16, usage: 8 }) !== undefined;
out.missing = await Gpgpu.create("webgpu").then(() => "opened", (e) => String(e.message ?? e));
out.globalsUnchanged = Object.getOwnPropertyNames(globalThis).sort().join() === globalsBefore;
console.log(JSON.stringify(out));
`;

test("Node: init() and Gpgpu.create(\"webgpu\", { gpu }) with npm webgpu, no globals set", () => {
  fs.writeFileSync(path.join(app, "node-check.mjs"), NODE_SCRIPT);
  const run = spawnSync(process.execPath, ["node-check.mjs"], {
    cwd: app,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, LD_LIBRARY_PATH: "/usr/lib/chromium", VK_ICD_FILENAMES: "/usr/lib/chromium/vk_swiftshader_icd.json" },
  });
  assert.equal(run.status, 0, `node-check.mjs exits by itself with 0 (signal ${run.signal}):\n${run.stdout}\n${run.stderr}`);
  const out = JSON.parse(run.stdout.trim().split("\n").pop());
  assert.equal(out.backend, "webgpu");
  assert.ok(out.productError < 1e-4, `product against float64: ${out.productError}`);
  assert.ok(out.cg.converged && out.cg.error < 1e-3, `cg: ${JSON.stringify(out.cg)}`);
  assert.ok(out.wall.finite && out.wall.moved > 0, `60 wall frames without a canvas: ${JSON.stringify(out.wall)}`);
  assert.ok(out.sharedProductError < 1e-4, `product on a GPUDevice handed over: ${out.sharedProductError}`);
  assert.ok(out.deviceAlive, "the device handed over outlives the Gpgpu");
  assert.match(out.missing, /navigator\.gpu is missing.*\{ gpu \}/, "without a gpu, a clear rejection, not a trap");
  assert.ok(out.globalsUnchanged, "texla leaves the global object as it found it");
});

/** The page a user writes: texla from the installed package through an import map. */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<script type="importmap">{ "imports": { "texla": "./node_modules/texla/texla.js" } }</script>
<script type="module">
  import init, { Gpgpu } from "texla";
  window.product = async (backend) => {
    await init();
    const gpu = await Gpgpu.create(backend);
    const a = gpu.upload([1, 2, 3, 4, 5, 6], 2, 3), b = gpu.upload([1, 0, 0, 1, 1, 1], 3, 2);
    const c = Array.from(await gpu.matmul(a, b).read());
    return { backend: gpu.backend, c };
  };
  window.ready = true;
</script>`;

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

testOnEachBackend(test, "a plain page imports the installed package through an import map", async (backend) => {
  fs.writeFileSync(path.join(app, "index.html"), PAGE);
  const server = await serve({ mounts: { "/app/": app } });
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  try {
    await page.goto(`${server.url}app/index.html`);
    await page.waitForFunction(() => window.ready === true);
    const got = await page.evaluate((b) => window.product(b), backend);
    assert.equal(got.backend, backend);
    assert.deepEqual(got.c, [4, 5, 10, 11]);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    server.close();
  }
});
