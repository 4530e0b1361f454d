// A survey of failure modes (issue 14), as a user meets them: each action is done through the
// public JS API (and, where the page shows it, the page) in headless Chromium, on both backends
// where it applies, and the script records what the user sees (the message of the Error thrown
// or of the rejected promise, or the page's text) and whether the Gpgpu (or the page) is usable
// afterwards (a small product and A·x checked against float64). Not a test: it asserts nothing
// and prints a Markdown table, so that a change of any message shows in a diff of its log.
// Usage: node bench/browser/failure-modes.mjs [backends = webgpu,webgl2] [mode filter (substring)]
// Output: the table on stdout (bench/records/browser/failure-modes.log), progress on stderr.
//
// Losses are forced from outside texla, as a GPU reset would come: an init script records the
// WebGL2 contexts (HTMLCanvasElement.getContext) and WebGPU devices (GPUAdapter.requestDevice)
// the page opens, and the survey calls WEBGL_lose_context.loseContext() / restoreContext() or
// device.destroy() on texla's own; texla's gpu.loseContext() is the page's button.
// Anything that gives no answer within its time limit is recorded as a hang, and the survey
// goes on with a fresh page (a fresh browser if the page will not close).
import { serve, launch, openPage } from "../../tests/e2e/browser.mjs";
import { HELPERS } from "./failure-modes-helpers.mjs";
import { onThePage } from "./failure-modes-page.mjs";

const backends = String(process.argv[2] ?? "webgpu,webgl2").split(",");
const only = process.argv[3] ?? "";

// ---- the modes: each runs in a fresh page, gets {backend}, returns rows {mode, sees, usable} ----

async function precisionProbe({ backend }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend);
  const caps = gpu.capabilities();
  const f = caps.float32;
  return [{
    mode: "precision probe: capabilities().float32 at create",
    sees: `float32 = ${JSON.stringify(f)} (adapter "${caps.adapter}", maxTextureSize ${caps.maxTextureSize}, tileLimit ${caps.tileLimit})`,
    usable: await fm.usable(gpu),
  }];
}

/** Loss of the context or device with an uploaded matrix, a result read back and one never
 * read; `restoreContext` (WebGL2) first calls the extension's restoreContext() and uses the
 * Gpgpu before texla's restore(). */
async function lossOfMatrices({ backend, restoreContext, preventDefault }) {
  const texla = await fm.texla();
  const rows = [];
  const mark = fm.mark();
  const gpu = await texla.Gpgpu.create(backend);
  const l = fm.loser(backend, mark);
  const A = [1, 2, 3, 4], B = [5, 6, 7, 8], AB = [19, 22, 43, 50], AA = [2, 4, 6, 8];
  const a = gpu.upload(new Float32Array(A), 2, 2);
  const b = gpu.upload(new Float32Array(B), 2, 2);
  const r = gpu.matmul(a, b);
  await r.read();
  const n = gpu.add(a, a);
  await gpu.finish();
  // A page that wants its WebGL context back calls preventDefault() on webglcontextlost (the
  // WebGL spec's way); without it restoreContext() is refused.
  if (preventDefault) {
    const canvas = gpu.wall(1).canvas();
    if (canvas !== l.ctx.canvas) throw new Error("the wall's canvas is not the canvas of texla's context");
    canvas.addEventListener("webglcontextlost", (e) => e.preventDefault());
  }
  const pre = `${l.what}${preventDefault ? " (the app's webglcontextlost listener on wall.canvas() calls preventDefault())" : ""}`;
  rows.push({ mode: `${pre}: the matrices before it`, sees: "A uploaded, R = A·B read back, N = A + A computed and never read", usable: await fm.usable(gpu) });
  const seen = async (m, want) => {
    const o = await fm.outcome(() => (typeof m === "function" ? m() : m).read());
    if (o.kind !== "resolved") return o.text;
    const got = Array.from(o.value);
    return String(got) === String(want) ? `[${got}], right` : `[${got}] SILENTLY WRONG (float64: [${want}])`;
  };
  l.lose();
  const lostNow = gpu.lost();
  if (backend === "webgpu" && !restoreContext) {
    // What restore() does before the device's lost promise has settled.
    const early = await fm.outcome(() => gpu.restore());
    rows.push({ mode: `${pre}: await gpu.restore() at once`, sees: `gpu.lost() = ${JSON.stringify(lostNow ?? null)}; restore() ${early.kind === "resolved" ? `resolves to ${JSON.stringify(early.value)}` : early.text}; gpu.lost() then = ${JSON.stringify(gpu.lost() ?? null)}`, usable: "(see the rows below)" });
  }
  const opNow = await fm.outcome(() => gpu.matmul(a, b).read());
  rows.push({ mode: `${pre}: at once, matmul(A, B).read()`, sees: `gpu.lost() = ${JSON.stringify(lostNow ?? null)}; matmul(A, B).read() ${opNow.kind === "resolved" ? `resolves to [${Array.from(opNow.value)}]` : opNow.text}`, usable: "(not yet restored)" });
  if (backend === "webgpu") {
    const info = await Promise.race([l.device.lost, fm.sleep(5000).then(() => null)]);
    const op = await fm.outcome(() => gpu.matmul(a, b).read());
    rows.push({ mode: `${pre}: once device.lost has resolved`, sees: `device.lost: ${info ? `${info.reason}: "${info.message}"` : "not resolved in 5 s"}; gpu.lost() = ${JSON.stringify(gpu.lost() ?? null)}; matmul(A, B).read() ${op.kind === "resolved" ? `resolves to [${Array.from(op.value)}]` : op.text}`, usable: "(not yet restored)" });
  } else {
    await fm.sleep(200);
    const op = await fm.outcome(() => gpu.matmul(a, b).read());
    rows.push({ mode: `${pre}: 200 ms later (webglcontextlost dispatched)`, sees: `gpu.lost() = ${JSON.stringify(gpu.lost() ?? null)}; matmul(A, B).read() ${op.kind === "resolved" ? `resolves to [${Array.from(op.value)}]` : op.text}`, usable: "(not yet restored)" });
  }
  if (restoreContext) {
    const restored = new Promise((done) => l.ctx.canvas.addEventListener("webglcontextrestored", () => done(true), { once: true }));
    l.ext.restoreContext();
    const glError = l.ctx.getError();
    const event = await Promise.race([restored, fm.sleep(3000).then(() => false)]);
    const op = await fm.outcome(() => gpu.matmul(a, b).read());
    const opText = op.kind === "resolved" ? (String(Array.from(op.value)) === String(AB) ? `resolves to [${Array.from(op.value)}], right` : `resolves to [${Array.from(op.value)}]: SILENTLY WRONG (float64: [${AB}])`) : op.text;
    rows.push({
      mode: `${pre}, then restoreContext(), and the Gpgpu used without restore()`,
      sees: `getError() after restoreContext = 0x${glError.toString(16)}; webglcontextrestored ${event ? "fired" : "did not fire in 3 s"}; isContextLost() = ${l.ctx.isContextLost()}; gpu.lost() = ${JSON.stringify(gpu.lost() ?? null)}; matmul(A, B).read() ${opText}; A.read(): ${await seen(a, A)}`,
      usable: await fm.usable(gpu),
    });
  }
  const rest = await fm.outcome(() => gpu.restore());
  rows.push({ mode: `${pre}${restoreContext ? ", restoreContext()," : ""} then await gpu.restore()`, sees: rest.kind === "resolved" ? `resolves to ${JSON.stringify(rest.value)}; gpu.lost() = ${JSON.stringify(gpu.lost() ?? null)}` : rest.text, usable: await fm.usable(gpu) });
  rows.push({ mode: `${pre}: after restore(), the uploaded A`, sees: `A.read(): ${await seen(a, A)}; matmul(A, B).read(): ${await seen(() => gpu.matmul(a, b), AB)}`, usable: await fm.usable(gpu) });
  rows.push({ mode: `${pre}: after restore(), the read-back R`, sees: `R.read(): ${await seen(r, AB)}`, usable: await fm.usable(gpu) });
  const nOp = await fm.outcome(() => gpu.add(n, a));
  rows.push({ mode: `${pre}: after restore(), the never-read N`, sees: `N.read(): ${await seen(n, AA)}; add(N, A) ${fm.says(nOp, "accepted")}`, usable: await fm.usable(gpu) });
  return rows;
}

/** A solver and the wall running when the context or device goes. */
async function lossWhileRunning({ backend }) {
  const texla = await fm.texla();
  const rows = [];
  const mark = fm.mark();
  const gpu = await texla.Gpgpu.create(backend);
  const l = fm.loser(backend, mark);
  const p = texla.Gpgpu.problem("poisson1d", 256, 1);
  const A = gpu.upload(p.a, p.n, p.n), b = gpu.upload(p.b, p.n, 1);
  let at = null;
  const cg = await fm.outcome(() => gpu.cg(A, b, { tol: 1e-12, maxIter: 3000, onProgress: (i) => { if (i >= 5 && at === null) { at = i; l.lose(); } } }));
  const cgSaw = cg.kind === "resolved" ? `resolves (converged ${cg.value.converged}, ${cg.value.iterations} iterations)${at === null ? " (the loss was never forced)" : ""}` : cg.text;
  const rest1 = await fm.outcome(() => gpu.restore());
  const again = await fm.outcome(() => gpu.cg(A, b, { tol: 1e-5, maxIter: 2000 }));
  let againSaw = again.text;
  if (again.kind === "resolved") {
    const x = await again.value.x.read();
    let e = 0, s = 0;
    for (let i = 0; i < p.n; i++) { e = Math.max(e, Math.abs(x[i] - p.x[i])); s = Math.max(s, Math.abs(p.x[i])); }
    againSaw = `CG run again: converged ${again.value.converged} in ${again.value.iterations} iterations; ${fm.verdict("x", e / s, 1e-3)}`;
  }
  rows.push({
    mode: `CG (poisson1d n = 256) running; ${l.what} from onProgress at iteration ${at}, then restore() and CG again`,
    sees: `cg ${cgSaw}; restore() ${rest1.kind === "resolved" ? JSON.stringify(rest1.value) : rest1.text}; ${againSaw}`,
    usable: await fm.usable(gpu),
  });
  // The wall: a frame in flight when the GPU goes.
  const mark2 = fm.mark();
  const gpu2 = await texla.Gpgpu.create(backend);
  const l2 = fm.loser(backend, mark2);
  const wall = gpu2.wall(1);
  await wall.step();
  const frame = fm.outcome(() => wall.step());
  l2.lose();
  const stepped = await frame;
  const next = await fm.outcome(() => wall.step());
  const rest2 = await fm.outcome(() => gpu2.restore());
  const after = await fm.outcome(() => wall.step());
  const draw = await fm.outcome(() => wall.draw());
  rows.push({
    mode: `wall.step() in flight; ${l2.what} right after the call, then the next step, restore() and a step`,
    sees: `the step in flight ${fm.says(stepped, "resolves")}; the next step ${fm.says(next, "resolves")}; restore() ${rest2.kind === "resolved" ? JSON.stringify(rest2.value) : rest2.text}; step after restore ${fm.says(after, `resolves (frame ${after.value?.frame}, ${after.value?.contacts} contacts, residual ${fm.fmt(after.value?.residual ?? NaN)})`)}; draw() ${fm.says(draw, "draws")}`,
    usable: await fm.usable(gpu2),
  });
  return rows;
}

/** Real shapes past one texture (8192 texels a side here). */
async function pastOneTexture({ backend }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend);
  const rows = [];
  const L = gpu.capabilities().maxTextureSize;
  {
    const m = 3, k = 16421;
    const a = fm.random(m * k, 1), x = fm.random(k, 2), bdata = fm.random(k * 3, 3);
    const A = gpu.upload(a, m, k), X = gpu.upload(x, k, 1), B = gpu.upload(bdata, k, 3);
    const y = await fm.outcome(() => gpu.mulVec(A, X).read());
    const c = await fm.outcome(() => gpu.matmul(A, B).read());
    const ey = fm.product(a, x, m, k, 1), ec = fm.product(a, bdata, m, k, 3);
    rows.push({
      mode: `3 x 16421 matrix (past ${L} columns): A·x and A·B (B 16421 x 3)`,
      sees: `A·x: ${y.kind === "resolved" ? fm.verdict("y", fm.error(y.value, ey.c, ey.abs)) : y.text}; A·B: ${c.kind === "resolved" ? fm.verdict("C", fm.error(c.value, ec.c, ec.abs)) : c.text}`,
      usable: await fm.usable(gpu),
    });
  }
  {
    const m = 32811, k = 3;
    const a = fm.random(m * k, 4), x = fm.random(k, 5), bdata = fm.random(k * 2, 6);
    const A = gpu.upload(a, m, k), X = gpu.upload(x, k, 1), B = gpu.upload(bdata, k, 2);
    const y = await fm.outcome(() => gpu.mulVec(A, X).read());
    const c = await fm.outcome(() => gpu.matmul(A, B).read());
    const t = await fm.outcome(() => gpu.matmul(A, A, { transposeA: true }).read());
    const ey = fm.product(a, x, m, k, 1), ec = fm.product(a, bdata, m, k, 2);
    const at = new Float32Array(k * m);
    for (let i = 0; i < m; i++) for (let j = 0; j < k; j++) at[j * m + i] = a[i * k + j];
    const et = fm.product(at, a, k, m, k);
    rows.push({
      mode: `32811 x 3 matrix (past ${4 * L} rows): A·x, A·B (B 3 x 2) and AᵀA`,
      sees: `A·x: ${y.kind === "resolved" ? fm.verdict("y", fm.error(y.value, ey.c, ey.abs)) : y.text}; A·B: ${c.kind === "resolved" ? fm.verdict("C", fm.error(c.value, ec.c, ec.abs)) : c.text}; AᵀA: ${t.kind === "resolved" ? fm.verdict("AᵀA", fm.error(t.value, et.c, et.abs)) : t.text}`,
      usable: await fm.usable(gpu),
    });
  }
  {
    const o = await fm.outcome(() => gpu.zeros(40000, 40000));
    rows.push({ mode: "zeros(40000, 40000): 1.6e9 elements, past the 2^30 cap", sees: fm.says(o, "accepted"), usable: await fm.usable(gpu) });
  }
  return rows;
}

/** A small tile limit: grids of small matrices against float64. */
async function tileLimit({ backend }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend, { tileLimit: 64 });
  const caps = gpu.capabilities();
  const [m, k, n] = [300, 100, 70];
  const a = fm.random(m * k, 7), b = fm.random(k * n, 8), x = fm.random(k, 9), a2 = fm.random(m * k, 10);
  const A = gpu.upload(a, m, k), B = gpu.upload(b, k, n), X = gpu.upload(x, k, 1), A2 = gpu.upload(a2, m, k);
  const parts = [];
  const c = await fm.outcome(() => gpu.matmul(A, B).read());
  const ec = fm.product(a, b, m, k, n);
  parts.push(c.kind === "resolved" ? fm.verdict("A·B", fm.error(c.value, ec.c, ec.abs)) : `A·B ${c.text}`);
  const y = await fm.outcome(() => gpu.mulVec(A, X).read());
  const ey = fm.product(a, x, m, k, 1);
  parts.push(y.kind === "resolved" ? fm.verdict("A·x", fm.error(y.value, ey.c, ey.abs)) : `A·x ${y.text}`);
  const s = await fm.outcome(() => gpu.add(A, A2).read());
  if (s.kind === "resolved") {
    let e = 0;
    for (let i = 0; i < m * k; i++) e = Math.max(e, Math.abs(s.value[i] - (a[i] + a2[i])) / (Math.abs(a[i]) + Math.abs(a2[i])));
    parts.push(fm.verdict("A + A2", e));
  } else parts.push(`A + A2 ${s.text}`);
  const d = await fm.outcome(() => gpu.dot(A, A2));
  if (d.kind === "resolved") {
    let e = 0, t = 0;
    for (let i = 0; i < m * k; i++) { e += a[i] * a2[i]; t += Math.abs(a[i] * a2[i]); }
    parts.push(fm.verdict("dot(A, A2)", Math.abs(d.value - e) / t));
  } else parts.push(`dot ${d.text}`);
  const t = await fm.outcome(() => gpu.transpose(A).read());
  if (t.kind === "resolved") {
    let ok = true;
    for (let i = 0; i < m && ok; i++) for (let j = 0; j < k; j++) if (t.value[j * m + i] !== a[i * k + j]) { ok = false; break; }
    parts.push(ok ? "Aᵀ exact" : "WRONG: Aᵀ differs");
  } else parts.push(`transpose ${t.text}`);
  return [{ mode: `Gpgpu.create(backend, { tileLimit: 64 }) (capabilities().tileLimit = ${caps.tileLimit}): ${m} x ${k} times ${k} x ${n}, A·x, add, dot, transpose`, sees: parts.join("; "), usable: await fm.usable(gpu) }];
}

/** CG on a Poisson grid past one texture: 300 x 300 with tiles of 64 (a grid of 5 x 5 tiles). */
async function cgPoissonTiles({ backend, side, limit, timeoutMs }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend, limit ? { tileLimit: limit } : undefined);
  const p = texla.Gpgpu.problem("poisson2d", side, 1);
  const b = gpu.upload(p.b, side, side);
  const abort = new AbortController();
  let last = { i: 0, of: 0, r: null };
  const t0 = performance.now();
  const o = await fm.outcome(() => gpu.cgPoisson2d(b, { tol: 1e-4, maxIter: 4000, onProgress: (i, of, r) => { last = { i, of, r }; }, signal: abort.signal }), timeoutMs);
  const s = (performance.now() - t0) / 1000;
  let sees;
  if (o.kind === "hang") {
    abort.abort();
    sees = `no answer in ${timeoutMs / 1000} s: still running at iteration ${last.i} of ${last.of} (residual ${last.r === null ? "not read" : fm.fmt(last.r)}), so aborted`;
  } else if (o.kind === "resolved") {
    const x = await o.value.x.read();
    let e = 0, m = 0;
    for (let i = 0; i < p.x.length; i++) { e = Math.max(e, Math.abs(x[i] - p.x[i])); m = Math.max(m, Math.abs(p.x[i])); }
    sees = `converged ${o.value.converged} in ${o.value.iterations} iterations, ${s.toFixed(1)} s, final relative residual ${fm.fmt(o.value.residuals.at(-1))}; ${fm.verdict("x against the known answer", e / m, 1e-2).replace("matches float64", "is within 1e-2")}`;
  } else sees = o.text;
  return [{ mode: `cgPoisson2d on a ${side} x ${side} grid (${side * side} unknowns)${limit ? `, tileLimit ${limit} (a grid of ${Math.ceil(side / limit) ** 2} tiles)` : ", one texture"}, tol 1e-4`, sees, usable: await fm.usable(gpu) }];
}

/** NaN, infinities, negatives, fractions and huge values as sizes and iteration counts. */
async function badNumbers({ backend }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend);
  const m22 = () => gpu.upload(new Float32Array([4, 1, 1, 3]), 2, 2);
  const v2 = () => gpu.upload(new Float32Array([1, 2]), 2, 1);
  const d6 = new Float32Array(6);
  const calls = [
    ["upload(data, NaN, 3)", () => gpu.upload(d6, NaN, 3)],
    ["upload(data, 2, Infinity)", () => gpu.upload(d6, 2, Infinity)],
    ["zeros(-1, 2)", () => gpu.zeros(-1, 2)],
    ["zeros(2.5, 2)", () => gpu.zeros(2.5, 2)],
    ["zeros(0, 3)", () => gpu.zeros(0, 3)],
    ["fill(2, -Infinity, 1)", () => gpu.fill(2, -Infinity, 1)],
    ["identity(NaN)", () => gpu.identity(NaN)],
    ["zeros(2 ** 31, 1)", () => gpu.zeros(2 ** 31, 1)],
    ["Gpgpu.problem(\"poisson2d\", 2.5, 1)", () => texla.Gpgpu.problem("poisson2d", 2.5, 1)],
    ["Gpgpu.problem(\"poisson1d\", 1e9, 1)", () => texla.Gpgpu.problem("poisson1d", 1e9, 1)],
    ["m.get(NaN, 0)", () => m22().get(NaN, 0)],
    ["m.set(0, 2.5, 1)", () => m22().set(0, 2.5, 1)],
    ["scale(m, NaN)", () => gpu.scale(m22(), NaN)],
    ["cg(A, b, { maxIter: NaN })", () => gpu.cg(m22(), v2(), { maxIter: NaN })],
    ["cg(A, b, { maxIter: Infinity })", () => gpu.cg(m22(), v2(), { maxIter: Infinity })],
    ["cg(A, b, { maxIter: -1 })", () => gpu.cg(m22(), v2(), { maxIter: -1 })],
    ["cg(A, b, { maxIter: 2.5 })", () => gpu.cg(m22(), v2(), { maxIter: 2.5 })],
    ["cg(A, b, { maxIter: 0 })", () => gpu.cg(m22(), v2(), { maxIter: 0 })],
    ["cg(A, b, { tol: NaN })", () => gpu.cg(m22(), v2(), { tol: NaN })],
    ["cg(A, b, { tol: -1 })", () => gpu.cg(m22(), v2(), { tol: -1 })],
    ["jacobi(A, b, { tol: -1 })", () => gpu.jacobi(m22(), v2(), { tol: -1 })],
    ["cgPoisson2d(b, { tol: -1 })", () => gpu.cgPoisson2d(m22(), { tol: -1 })],
    ["cg(A, b, { maxIter: 1e9 })", () => gpu.cg(m22(), v2(), { maxIter: 1e9 })],
    ["jacobi(A, b, { checkEvery: 0 })", () => gpu.jacobi(m22(), v2(), { checkEvery: 0 })],
    ["jacobi(A, b, { maxIter: 1e15 })", () => gpu.jacobi(m22(), v2(), { maxIter: 1e15 })],
    ["lcpJacobi(A, b, { iterations: NaN })", () => gpu.lcpJacobi(m22(), v2(), { iterations: NaN })],
    ["lcpJacobi(A, b, { iterations: -3 })", () => gpu.lcpJacobi(m22(), v2(), { iterations: -3 })],
    ["lcpJacobi(A, b, { iterations: 2 ** 31 })", () => gpu.lcpJacobi(m22(), v2(), { iterations: 2 ** 31 })],
    ["lcpJacobi(A, b, { omega: Infinity })", () => gpu.lcpJacobi(m22(), v2(), { omega: Infinity })],
    ["lcpJacobi(A, b, { omega: 0.5 })", () => gpu.lcpJacobi(m22(), v2(), { omega: 0.5 })],
    ["lcpJacobi(A, b, { kernel: \"compute\", iterations: 2.5 })", () => gpu.lcpJacobi(m22(), v2(), { kernel: "compute", iterations: 2.5 })],
    ["matmul(A, A, { kernel: \"passes\", perPass: 0.5 })", () => gpu.matmul(m22(), m22(), { kernel: "passes", perPass: 0.5 })],
    ["nmf(V, 1, { iterations: Infinity })", () => gpu.nmf(gpu.upload(new Float32Array([1, 2, 3, 4, 5, 6]), 2, 3), 1, { iterations: Infinity })],
    ["gpu.wall(NaN)", () => gpu.wall(NaN)],
    ["wall.reset(1, 2.5)", () => gpu.wall(1).reset(1, 2.5)],
    ["wall.setIterations(-1)", () => gpu.wall(1).setIterations(-1)],
    ["wall.setIterations(2.5)", () => gpu.wall(1).setIterations(2.5)],
    ["wall.setIterations(NaN)", () => gpu.wall(1).setIterations(NaN)],
    ["Gpgpu.create(backend, { tileLimit: 6 })", () => texla.Gpgpu.create(backend, { tileLimit: 6 })],
    ["Gpgpu.create(backend, { memoryBudget: -1 })", () => texla.Gpgpu.create(backend, { memoryBudget: -1 })],
  ];
  const rows = [];
  for (const [what, f] of calls) {
    const o = await fm.outcome(f, 20000);
    let sees = fm.says(o, o.kind === "resolved" ? `accepted (resolves${o.value && typeof o.value === "object" && "iterations" in o.value ? `: ${o.value.iterations} iterations, converged ${o.value.converged}` : ""})` : "accepted (returns)");
    rows.push({ mode: `bad number: ${what}`, sees, usable: await fm.usable(gpu) });
  }
  return rows;
}

/** An iteration count with no cap: does a long run keep the page responsive, and can it be
 * stopped? (Projected Jacobi runs all its iterations; 10^7 is the cap.) */
async function longRun({ backend }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend);
  const p = texla.Gpgpu.problem("lcp", 64, 1);
  const A = gpu.upload(p.a, p.n, p.n), b = gpu.upload(p.b, p.n, 1);
  const abort = new AbortController();
  let it = 0;
  let settled = null;
  const run = gpu.lcpJacobi(A, b, { iterations: 1e7, onProgress: (i) => { it = i; }, signal: abort.signal });
  run.then((r) => { settled ??= `resolved by itself at iteration ${r.iterations} (converged ${r.converged})`; }, (e) => { settled ??= `rejected by itself: ${fm.message(e)}`; });
  // The page's own timers meanwhile: how late does a 100 ms tick come?
  let late = 0;
  for (let k = 0; k < 30; k++) {
    const t = performance.now();
    await fm.sleep(100);
    late = Math.max(late, performance.now() - t - 100);
  }
  const at = it;
  const before = settled;
  abort.abort();
  const o = await fm.outcome(() => run, 20000);
  const ended = before ? `it had already ${before}` : `abort(): ${fm.says(o, `resolves (iterations ${o.value?.iterations}, converged ${o.value?.converged})`)}`;
  return [{
    mode: "lcpJacobi(A, b, { iterations: 1e7 }) (the largest count allowed; n = 64), left 3 s, then its AbortSignal",
    sees: `accepted; after 3 s at iteration ${at}, the page's 100 ms timer at most ${late.toFixed(0)} ms late; ${ended}`,
    usable: await fm.usable(gpu),
  }];
}

async function misspelt({ backend }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend);
  const m22 = () => gpu.upload(new Float32Array([4, 1, 1, 3]), 2, 2);
  const v2 = () => gpu.upload(new Float32Array([1, 2]), 2, 1);
  const calls = [
    ["cg(A, b, { maxIterations: 5 })", () => gpu.cg(m22(), v2(), { maxIterations: 5 })],
    ["cg(A, b, { tolerance: 1e-3 })", () => gpu.cg(m22(), v2(), { tolerance: 1e-3 })],
    ["cgPoisson2d(b, { maxiter: 5 })", () => gpu.cgPoisson2d(m22(), { maxiter: 5 })],
    ["jacobi(A, b, { check_every: 2 })", () => gpu.jacobi(m22(), v2(), { check_every: 2 })],
    ["lcpJacobi(A, b, { omgea: -0.1 })", () => gpu.lcpJacobi(m22(), v2(), { omgea: -0.1 })],
    ["lcpJacobi(A, b, { kernel: \"compute\", workgroup: 1 })", () => gpu.lcpJacobi(m22(), v2(), { kernel: "compute", workgroup: 1 })],
    ["matmul(A, B, { transpose: true })", () => gpu.matmul(m22(), m22(), { transpose: true })],

    ["nmf(V, 1, { iteration: 2 })", () => gpu.nmf(gpu.upload(new Float32Array([1, 2, 3, 4, 5, 6]), 2, 3), 1, { iteration: 2 })],
    ["Gpgpu.create(backend, { tilelimit: 64 })", () => texla.Gpgpu.create(backend, { tilelimit: 64 })],
    ["Gpgpu.create(backend, { keepCopy: false })", () => texla.Gpgpu.create(backend, { keepCopy: false })],
  ];
  const rows = [];
  // An option of the wrong type: A = [1 2; 3 4] is not symmetric, so AᵀB and AB differ.
  const a = () => gpu.upload(new Float32Array([1, 2, 3, 4]), 2, 2);
  const AB = "1,2,3,4", AtB = "1,3,2,4"; // B = I
  for (const value of ["yes", 1]) {
    const o = await fm.outcome(() => gpu.matmul(a(), gpu.identity(2), { transposeA: value }).read());
    const got = o.kind === "resolved" ? String(Array.from(o.value)) : null;
    rows.push({
      mode: `option of the wrong type: matmul(A, I, { transposeA: ${JSON.stringify(value)} })`,
      sees: o.kind !== "resolved" ? o.text : got === AtB ? `accepted: AᵀB = [${got}] (the value taken as true)` : got === AB ? `accepted, no error: returns AB = [${got}], not AᵀB = [${AtB}]: the option is SILENTLY IGNORED` : `accepted: returns [${got}]`,
      usable: await fm.usable(gpu),
    });
  }
  for (const [what, f] of [
    ["cg(A, b, { fused: \"yes\" })", () => gpu.cg(m22(), v2(), { fused: "yes" })],
    ["cg(A, b, { onProgress: \"log\" })", () => gpu.cg(m22(), v2(), { onProgress: "log" })],
    ["cg(A, b, { signal: true })", () => gpu.cg(m22(), v2(), { signal: true })],
  ]) {
    const o = await fm.outcome(f, 20000);
    rows.push({ mode: `option of the wrong type: ${what}`, sees: fm.says(o, "accepted (resolves), no error: the value is ignored"), usable: await fm.usable(gpu) });
  }
  for (const [what, f] of calls) {
    const o = await fm.outcome(f, 20000);
    rows.push({ mode: `misspelt option: ${what}`, sees: fm.says(o, o.kind === "resolved" ? "accepted (resolves), the option silently ignored" : "accepted (returns), the option silently ignored"), usable: await fm.usable(gpu) });
  }
  return rows;
}

async function wallSettings({ backend }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend);
  const rows = [];
  const wall = gpu.wall(1);
  await wall.step();
  const big = await fm.outcome(() => wall.setIterations(2 ** 31));
  const step1 = await fm.outcome(() => wall.step(), 60000);
  rows.push({ mode: "wall.setIterations(2 ** 31), then wall.step()", sees: `${fm.says(big)}; the next step ${fm.says(step1, `resolves in ${step1.ms.toFixed(0)} ms`)}`, usable: await fm.usable(gpu) });
  const max = await fm.outcome(() => wall.setIterations(20000));
  wall.setSleeping(false);
  const step2 = await fm.outcome(() => wall.step(), 60000);
  rows.push({ mode: "wall.setIterations(20000) (the largest allowed), sleeping off, then wall.step()", sees: `${fm.says(max)}; the step ${fm.says(step2, `resolves in ${(step2.ms / 1000).toFixed(1)} s`)}`, usable: await fm.usable(gpu) });
  // The same long frame, cancelled after 2 s: is the page responsive meanwhile, when does the
  // abandoned step settle, and how long does the next (default) frame take?
  wall.reset();
  const t0 = performance.now();
  const long = fm.outcome(() => wall.step(), 120000);
  let late = 0;
  for (let k = 0; k < 20; k++) {
    const t = performance.now();
    await fm.sleep(100);
    late = Math.max(late, performance.now() - t - 100);
  }
  const cancelled = wall.cancel();
  const tc = performance.now();
  wall.setIterations(0);
  const nextStep = await fm.outcome(() => wall.step(), 120000);
  const tn = performance.now();
  const abandoned = await long;
  rows.push({
    mode: "wall.setIterations(20000), wall.step(), then wall.cancel() after 2 s and a default step",
    sees: `the page's 100 ms timer at most ${late.toFixed(0)} ms late during the frame; cancel() = ${cancelled}; the abandoned step ${fm.says(abandoned, "resolves")} ${((performance.now() - t0) / 1000).toFixed(1)} s after it began; the next step ${fm.says(nextStep, `resolves ${((tn - tc) / 1000).toFixed(1)} s after cancel()`)}`,
    usable: await fm.usable(gpu),
  });
  wall.setSleeping(true);
  const om = await fm.outcome(() => wall.setOmega(-0.8));
  const step3 = await fm.outcome(() => wall.step(), 60000);
  rows.push({ mode: "wall.setOmega(-0.8), then wall.step()", sees: `${fm.says(om)}; the next step ${fm.says(step3, `resolves (${step3.value ? `${step3.value.contacts} contacts` : ""})`)}`, usable: await fm.usable(gpu) });
  const w = await fm.outcome(() => gpu.wall(1, 101));
  rows.push({ mode: "gpu.wall(1, 101)", sees: fm.says(w), usable: await fm.usable(gpu) });
  const r = await fm.outcome(() => wall.reset(1, 101));
  rows.push({ mode: "wall.reset(1, 101)", sees: fm.says(r), usable: await fm.usable(gpu) });
  return rows;
}

async function misuse({ backend }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend);
  const rows = [];
  const m22 = () => gpu.upload(new Float32Array([4, 1, 1, 3]), 2, 2);
  const m23 = () => gpu.upload(new Float32Array([1, 2, 3, 4, 5, 6]), 2, 3);
  const v2 = () => gpu.upload(new Float32Array([1, 2]), 2, 1);
  const v3 = () => gpu.upload(new Float32Array([1, 2, 3]), 3, 1);
  const freed = m22();
  freed.free();
  const freedCalls = [
    ["matmul(freed, B)", () => gpu.matmul(freed, m22())],
    ["freed.read()", () => freed.read()],
    ["freed.get(0, 0)", () => freed.get(0, 0)],
    ["freed.free() again", () => freed.free()],
    ["cg(freed, b)", () => gpu.cg(freed, v2(), {})],
    ["B.addAssign(freed)", () => m22().addAssign(freed)],
  ];
  for (const [what, f] of freedCalls) {
    const o = await fm.outcome(f, 20000);
    rows.push({ mode: `freed matrix used again: ${what}`, sees: fm.says(o), usable: await fm.usable(gpu) });
  }
  const other = await texla.Gpgpu.create(backend);
  const theirs = other.upload(new Float32Array([1, 0, 0, 1]), 2, 2);
  const otherCalls = [
    ["gpu.add(A, B of another Gpgpu)", () => gpu.add(m22(), theirs)],
    ["gpu.matmul(A, B of another Gpgpu)", () => gpu.matmul(m22(), theirs)],
    ["gpu.cg(A of another Gpgpu, b)", () => gpu.cg(theirs, v2(), {})],
  ];
  const cross = backend === "webgpu" ? "webgl2" : "webgpu";
  const otherKind = await fm.outcome(() => texla.Gpgpu.create(cross));
  if (otherKind.kind === "resolved") {
    const m = otherKind.value.upload(new Float32Array([1, 0, 0, 1]), 2, 2);
    otherCalls.push([`gpu.matmul(A, B of a ${cross} Gpgpu)`, () => gpu.matmul(m22(), m)]);
  }
  for (const [what, f] of otherCalls) {
    const o = await fm.outcome(f, 20000);
    rows.push({ mode: `matrix of another Gpgpu: ${what}`, sees: fm.says(o), usable: await fm.usable(gpu) });
  }
  const shapeCalls = [
    ["matmul(2x3, 2x3)", () => gpu.matmul(m23(), m23())],
    ["add(2x3, 2x2)", () => gpu.add(m23(), m22())],
    ["mulVec(2x2, 3x1)", () => gpu.mulVec(m22(), v3())],
    ["square(2x3)", () => gpu.square(m23())],
    ["dot(2x2, 2x3)", () => gpu.dot(m22(), m23())],
    ["cg(2x3, b)", () => gpu.cg(m23(), v2(), {})],
    ["cg(A 2x2, b 3x1)", () => gpu.cg(m22(), v3(), {})],
    ["lcpJacobi(A 2x2, b 3x1)", () => gpu.lcpJacobi(m22(), v3(), {})],
    ["cgPoisson2d(b 2x2, { x0: 2x3 })", () => gpu.cgPoisson2d(m22(), { x0: m23() })],
    ["upload(5 values, 2, 3)", () => gpu.upload(new Float32Array(5), 2, 3)],
  ];
  for (const [what, f] of shapeCalls) {
    const o = await fm.outcome(f, 20000);
    rows.push({ mode: `shapes that do not match: ${what}`, sees: fm.says(o), usable: await fm.usable(gpu) });
  }
  return rows;
}

/** The single-dispatch LCP with x past workgroup memory: A = 2I, b = -1, so x = 1/2. */
async function lcpCompute({ backend }) {
  const texla = await fm.texla();
  const gpu = await texla.Gpgpu.create(backend);
  const rows = [];
  // SwiftShader's WebGPU allows 32 KiB of workgroup memory: x of 8000 float32s (and the
  // partial sums) does not fit; 1000 and 4500 do (4500 is past the README's 16 KiB example).
  for (const n of [1000, 4500, 8000]) {
    const A = gpu.scale(gpu.identity(n), 2);
    const b = gpu.fill(n, 1, -1);
    await gpu.finish();
    const o = await fm.outcome(() => gpu.lcpJacobi(A, b, { kernel: "compute", iterations: 300 }), 240000);
    let sees = fm.says(o);
    if (o.kind === "resolved") {
      const x = await o.value.x.read();
      let e = 0;
      for (const v of x) e = Math.max(e, Math.abs(v - 0.5));
      sees = `resolves in ${(o.ms / 1000).toFixed(1)} s (one dispatch, no signal to cancel it); ${fm.verdict("x", e / 0.5, 1e-4)}`;
    }
    rows.push({ mode: `lcpJacobi(A = 2I, b = -1, { kernel: "compute", iterations: 300 }), n = ${n} (x: ${n * 4} bytes)`, sees, usable: await fm.usable(gpu) });
    A.free();
    b.free();
  }
  // How long may one dispatch run? Iterations are capped at 10^7 (option_count); time 10^4 at
  // n = 64 and scale: the whole run is one dispatch, with no signal to cancel it.
  {
    const A = gpu.scale(gpu.identity(64), 2), b = gpu.fill(64, 1, -1);
    await gpu.finish();
    const o = await fm.outcome(() => gpu.lcpJacobi(A, b, { kernel: "compute", iterations: 10000 }), 120000);
    const per = o.ms / 10000;
    rows.push({
      mode: "lcpJacobi(A 64 x 64, b, { kernel: \"compute\", iterations: 10000 }): how long one uncancellable dispatch may run",
      sees: o.kind === "resolved" ? `resolves in ${(o.ms / 1000).toFixed(1)} s; the largest count accepted (10^7) would hold the GPU for about ${fm.fmt(per * 1e7 / 1000)} s in one dispatch, which an AbortSignal cannot stop (the option is refused) and a GPU watchdog would end by losing the device` : fm.says(o),
      usable: await fm.usable(gpu),
    });
  }
  // A system past one texture (tiles of 64): the kernel takes one texture only.
  const tiled = await texla.Gpgpu.create(backend, { tileLimit: 64 });
  const A = tiled.scale(tiled.identity(300), 2), b = tiled.fill(300, 1, -1);
  const o = await fm.outcome(() => tiled.lcpJacobi(A, b, { kernel: "compute", iterations: 300 }), 60000);
  rows.push({ mode: "lcpJacobi kernel compute, n = 300 with tileLimit 64 (A a grid of 5 x 5 tiles)", sees: fm.says(o, "resolves"), usable: await fm.usable(tiled) });
  return rows;
}

const modes = [
  { name: "precision probe", fn: precisionProbe },
  { name: "loss of matrices", fn: lossOfMatrices },
  { name: "loss with restoreContext", fn: lossOfMatrices, arg: { restoreContext: true }, backends: ["webgl2"] },
  { name: "loss with preventDefault and restoreContext", fn: lossOfMatrices, arg: { restoreContext: true, preventDefault: true }, backends: ["webgl2"] },
  { name: "loss while running", fn: lossWhileRunning },
  { name: "past one texture", fn: pastOneTexture, timeoutS: 300 },
  { name: "tile limit", fn: tileLimit },
  { name: "cgPoisson2d tiles", fn: cgPoissonTiles, arg: { side: 300, limit: 64, timeoutMs: 400_000 }, timeoutS: 480 },
  { name: "cgPoisson2d one texture", fn: cgPoissonTiles, arg: { side: 300, limit: 0, timeoutMs: 400_000 }, timeoutS: 480 },
  { name: "bad numbers", fn: badNumbers, timeoutS: 900 },
  { name: "long run", fn: longRun },
  { name: "misspelt", fn: misspelt },
  { name: "wall settings", fn: wallSettings, timeoutS: 300 },
  { name: "misuse", fn: misuse, timeoutS: 600 },
  { name: "lcp compute", fn: lcpCompute, timeoutS: 900 },
  { name: "page", page: onThePage, timeoutS: 900 },
];

const server = await serve();
let browser = await launch();
const rows = [];
const withTimeout = (p, s) => Promise.race([p, new Promise((done) => setTimeout(() => done({ timedOut: true }), s * 1000))]);
for (const mode of modes) {
  if (only && !mode.name.includes(only)) continue;
  for (const backend of mode.backends ?? backends) {
    if (!backends.includes(backend)) continue;
    const t0 = Date.now();
    process.stderr.write(`${backend}: ${mode.name}… `);
    const context = await browser.newContext();
    await context.addInitScript({ content: HELPERS });
    const limit = mode.timeoutS ?? 180;
    let result;
    let problems = [];
    try {
      let page;
      if (mode.page) {
        // Rows come one by one, so that those before a failure are kept.
        const rows = [];
        ({ page, problems } = await openPage(context, server, `?backend=${backend}`));
        result = await withTimeout(mode.page(page, backend, rows).then(() => rows, (e) => [...rows, { mode: "page: the next step", sees: `the survey's page failed: ${String(e.message ?? e).split("\n")[0]}`, usable: "?" }]), limit);
        if (result?.timedOut) result = [...rows, { mode: "page: the next step", sees: `HANG: no answer in ${limit} s`, usable: "?" }];
      } else {
        page = await context.newPage();
        page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
        await page.goto(`${server.url}www/style.css`);
        result = await withTimeout(page.evaluate(mode.fn, { ...(mode.arg ?? {}), backend }), limit);
      }
    } catch (e) {
      result = [{ mode: mode.name, sees: `the survey's page failed: ${String(e.message ?? e).split("\n")[0]}`, usable: "?" }];
    }
    if (result?.timedOut) result = [{ mode: mode.name, sees: `HANG: the page gave no answer in ${limit} s (the rows of this mode are lost)`, usable: "?" }];
    if (problems.length) result.push({ mode: `${mode.name}: the page's errors meanwhile`, sees: problems.join("; "), usable: "" });
    rows.push(...result.map((r) => ({ backend, ...r })));
    const closed = await withTimeout(context.close().then(() => true), 20);
    if (closed?.timedOut) {
      process.stderr.write("(the page would not close: a fresh browser) ");
      await withTimeout(browser.close(), 20);
      browser = await launch();
    }
    process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
}
await withTimeout(browser.close(), 20);
server.close();

const cell = (s) => String(s).replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
console.log(`Failure modes of texla through its public JS API and page, headless Chromium (SwiftShader), ${new Date().toISOString()}`);
console.log("(bench/browser/failure-modes.mjs; \"usable afterwards\": a 2x3 by 3x2 product and A·x on the same Gpgpu equal float64, or the page's square)");
console.log("");
console.log("| backend | failure mode | what the user sees | usable afterwards |");
console.log("|---|---|---|---|");
for (const r of rows) console.log(`| ${r.backend} | ${cell(r.mode)} | ${cell(r.sees)} | ${cell(r.usable)} |`);
const count = (re) => rows.filter((r) => re.test(`${r.sees} ${r.usable}`)).length;
console.log("");
console.log(`${rows.length} rows; ${count(/HANG/)} with a hang, ${count(/WASM TRAP/)} with a wasm trap, ${count(/WRONG|SILENTLY/)} with a wrong or silently ignored result, ${rows.filter((r) => /^NO/.test(r.usable)).length} not usable afterwards, ${count(/FROZE/)} with a frozen page.`);
process.exit(0);
