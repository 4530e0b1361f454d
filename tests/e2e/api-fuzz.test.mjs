// Seeded fuzz of the whole JS API with bad arguments, in headless Chromium on both backends:
// every call must throw or reject with an Error that has a message (not a wasm trap, not a
// hang), and the module must compute correctly afterwards.
import { test } from "node:test";
import assert from "node:assert/strict";
import { onEachBackend, testOnEachBackend } from "./browser.mjs";

/** Runs in the page: `calls` seeded bad calls on a Gpgpu of `backend`; the problems found. */
async function fuzz({ backend, seed, calls }) {
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const gpu = await texla.Gpgpu.create(backend);
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  // Bad values by kind. Numbers given as numeric strings are JavaScript's to convert, not bad.
  const dims = [0, -1, -3, 0.5, 2.5, NaN, Infinity, -Infinity, 2 ** 31, 1e12, null, undefined, {}, [], "x"];
  const counts = [-1, 0.5, NaN, Infinity, -Infinity, 2 ** 31, 1e15, "x", {}];
  const reals = [NaN, Infinity, -Infinity, "x", {}, undefined];
  // A tolerance may be any size, but not negative, NaN or infinite.
  const tolerances = [-1, -1e-9, NaN, Infinity, -Infinity, "x", {}];
  const solverOption = (names) => {
    const name = pick(names);
    return { [name]: name === "tol" ? pick(tolerances) : pick(counts) };
  };
  const notMatrix = [null, undefined, 3, "a", {}, [], new Float32Array(4)];
  const m23 = () => gpu.upload(new Float32Array([1, 2, 3, 4, 5, 6]), 2, 3);
  const m22 = () => gpu.upload(new Float32Array([4, 1, 1, 3]), 2, 2);
  const v2 = () => gpu.upload(new Float32Array([1, 2]), 2, 1);
  const freed = () => {
    const m = m22();
    m.free();
    return m;
  };
  const anyBadMatrix = () => pick([...notMatrix, freed()]);
  const wall = gpu.wall(1);
  const templates = [
    ["upload rows", () => gpu.upload(new Float32Array(6), pick(dims), 3)],
    ["upload cols", () => gpu.upload(new Float32Array(6), 2, pick(dims))],
    ["upload data", () => gpu.upload(pick([null, undefined, "abc", {}, 7, new Float32Array(5), new Float32Array(7)]), 2, 3)],
    ["zeros", () => gpu.zeros(pick(dims), pick([2, ...dims]))],
    ["fill", () => gpu.fill(pick(dims), 2, 1)],
    ["identity", () => gpu.identity(pick(dims), 2)],
    ["matmul shapes", () => gpu.matmul(m23(), m23())],
    ["matmul operand", () => pick([
      (a, b) => gpu.matmul(a, b),
      (a, b) => gpu.matmul(a, b, { kernel: "fast" }),
      (a, b) => gpu.matmul(a, b, { kernel: "teaching" }),
      (a, b) => gpu.matmul(a, b, { transposeA: true }),
      (a, b) => gpu.matmul(a, b, { transposeB: true }),
      (a, b) => gpu.add(a, b),
      (a, b) => gpu.sub(a, b),
      (a, b) => gpu.componentMul(a, b),
    ])(m22(), anyBadMatrix())],
    ["matmul perPass", () => gpu.matmul(m22(), m22(), { kernel: "passes", perPass: pick(counts.filter((c) => c !== "x")) })],
    // A kernel misnamed, not a string, one WebGL2 lacks, or an option another kernel owns.
    ["matmul kernel", () => gpu[pick(["matmul", "square"])](m22(), pick([
      { kernel: "tiled" }, { kernel: "" }, { kernel: 3 }, { kernel: "Fast" }, { kernel: "fast", perPass: 2 }, { perPass: 2 },
      ...(backend === "webgl2" ? [{ kernel: "compute" }, { kernel: "registers" }] : []),
    ]))],
    ["mulVec kernel", () => gpu.mulVec(m22(), v2(), pick([
      { kernel: "fast" }, { kernel: null, x: 1 }, { kernel: {} }, ...(backend === "webgl2" ? [{ kernel: "compute" }] : []),
    ]))],
    ["lcp kernel", () => gpu.lcpJacobi(m22(), v2(), pick([
      { kernel: "auto" }, { kernel: 1 }, { workgroups: 2 }, { kernel: "fragment", workgroups: 1 },
      ...(backend === "webgl2" ? [{ kernel: "compute" }] : [{ kernel: "compute", workgroups: pick(counts) }]),
    ]))],
    ["add shapes", () => gpu[pick(["add", "sub", "componentMul"])](m23(), m22())],
    // ([] is JavaScript's 0, and "2" its 2: not bad.)
    ["scale factor", () => gpu[pick(["scale", "maxScalar"])](m22(), pick(["x", {}, undefined, NaN, Infinity]))],
    ["square shape", () => gpu.square(m23(), pick([undefined, { kernel: "fast" }, { kernel: "teaching" }]))],
    ["mulVec shapes", () => gpu.mulVec(m22(), m23(), pick([undefined, { kernel: "blocked" }, { kernel: "naive" }]))],
    ["map expression", () => gpu.map(pick(["a +", "foo(a)", "", "a * (b", "g + 1", "1 +* 2", "a".repeat(5000) + "(", "sin()"]), [m22(), m22()])],
    ["map inputs", () => gpu.map("a + b", pick([[m22()], [], null, "a", [m22(), 3], [m22(), m23()]]))],
    ["dot shapes", () => gpu[pick(["dot", "normSquared", "sum"])](anyBadMatrix(), m22())],
    ["cg options", () => gpu.cg(m22(), v2(), solverOption(["maxIter", "tol"]))],
    ["cg shapes", () => gpu.cg(m23(), v2(), {})],
    ["jacobi options", () => gpu.jacobi(m22(), v2(), solverOption(["maxIter", "tol", "checkEvery"]))],
    ["lcp options", () => gpu.lcpJacobi(m22(), v2(), { [pick(["iterations", "omega"])]: pick(counts) })],
    ["nmf k", () => gpu.nmf(m23(), pick([0, -1, 0.5, NaN, Infinity, 4, 1e9, "x"]), { iterations: 2 })],
    // (A large eps is a valid if odd guard: eps takes the bad reals and negatives.)
    ["nmf options", () => gpu.nmf(m23(), 1, pick([{ [pick(["iterations", "checkEvery"])]: pick(counts) }, { eps: pick(tolerances) }]))],
    ["nmf data", () => gpu.nmf(gpu.upload(new Float32Array([1, -2, 3, 4]), 2, 2), 1, { iterations: 2 })],
    ["get index", () => m22().get(pick([-1, 2, 0.5, NaN, Infinity, "x"]), 0)],
    ["set index", () => m22().set(0, pick([-1, 2, 0.5, NaN, Infinity, "x"]), 1)],
    ["read freed", () => freed().read()],
    ["problem", () => texla.Gpgpu.problem(pick(["nonsense", "", null]), 4, 1)],
    ["problem size", () => texla.Gpgpu.problem("poisson2d", pick(dims), 1)],
    ["partsImages", () => texla.Gpgpu.partsImages(pick(dims))],
    ["create backend", () => texla.Gpgpu.create(pick(["nonsense", "webgl", "gl2", "cuda"]))],
    ["create budget", () => texla.Gpgpu.create(backend, { memoryBudget: pick([-1, 0, 0.5, NaN, "x"]) })],
    ["wall iterations", () => wall.setIterations(pick(counts))],
    ["wall omega", () => wall.setOmega(pick([...reals, -5, 5, 0]))],
    ["wall walls", () => wall.reset(1, pick([0, -1, 0.5, 1001, 1e9, NaN, Infinity]))],
    ["wall seed", () => wall.reset(pick([-1, 0.5, NaN, Infinity, 2 ** 53]), 1)],
    ["wall preset", () => wall.preset(pick(["nonsense", "", "TEXLA "]))],
    ["wall mode", () => wall.setMode(pick(["nonsense", "", "Dense "]))],
    ["wall solveLcp", () => wall.solveLcp(...pick([["nonsense", 4], ["Jacobi", 4], ["jacobi", 0], ["jacobi", 0.5], ["nesterov", NaN], ["nesterov", 1e9], ["gauss-seidel", 4, "cold"], ["soft", 4]]))],
    ["wall push", () => wall.push(pick(reals), 0.5, 1)],
    ["wall orbit", () => wall.orbit(pick(reals), 0, 1)],
    ["wall of gpu", () => gpu.wall(1, pick([0, -1, 0.5, 1001, NaN]))],
    ["create keepCopies", () => texla.Gpgpu.create(backend, { keepCopies: pick([0, 1, "yes", {}, null]) })],
    ["create tileLimit", () => texla.Gpgpu.create(backend, { tileLimit: pick([0, -4, 6, 2.5, NaN, 2 ** 31, "x"]) })],
    ["cgPoisson2d", () => gpu.cgPoisson2d(pick([...notMatrix, freed()]), {})],
    ["cgPoisson2d options", () => gpu.cgPoisson2d(m22(), { [pick(["tol", "maxIter", "x0"])]: pick([...tolerances, m23()]) })],
    ["linear fromDense", () => texla.LinearExpr.fromDense(pick([new Float64Array(5), new Float64Array([1, NaN, 0, 1]), new Float64Array([Infinity, 0, 0, 1]), null, "x"]), pick([2, 0, -1, 0.5, NaN, 5000]))],
    ["linear b", () => texla.LinearExpr.fromDense(new Float64Array([1, 2, 3, 4]), 2, pick([new Float64Array(3), new Float64Array([NaN, 1]), "x"]))],
    ["linear permute", () => texla.LinearExpr.example("rk-cars").permute(pick([[0, 0], new Uint32Array(19), [...Array(20).keys()].map((i) => i + 1), "x", null]))],
    ["linear optimize", () => texla.LinearExpr.example("poisson-2d-s").optimize({ [pick(["seed", "moves"])]: pick([-1, 0.5, NaN, 2 ** 40, "x"]) })],
    ["linear example", () => texla.LinearExpr.example(pick(["", "nonsense", "RK-CARS"]))],
    ["linear shader", () => texla.LinearExpr.example("poisson-2d-s").shader(pick(["hlsl", "", "WGSL "]))],
    ["linear x", () => gpu.linear(texla.LinearExpr.example("poisson-2d-s"), pick([m22(), m23(), v2(), freed()]))],
    ["uploadFloat64", () => gpu.uploadFloat64(pick([new Float64Array(5), new Float64Array([1, NaN, 2, 3]), new Float32Array(6), null, "x"]), 2, pick([3, 2, 0, NaN]))],
    ["misspelt option", () => pick([
      () => gpu.cg(m22(), v2(), { maxIterations: 5 }),
      () => gpu.jacobi(m22(), v2(), { tolerance: 1e-3 }),
      () => gpu.lcpJacobi(m22(), v2(), { omgea: -0.1 }),
      () => gpu.matmul(m22(), m22(), { transpose: true }),
      () => gpu.nmf(m23(), 1, { iteration: 2 }),
      () => gpu.matmul(m22(), m22(), 7),
      () => texla.Gpgpu.create(backend, { keepCopy: false }),
    ])()],
    ["poisson grid", () => gpu.poisson({ [pick(["nx", "ny", "nz"])]: pick([0, -1, 0.5, NaN, Infinity, 1e9, "x"]) })],
    ["poisson ordering", () => gpu.poisson({ nx: 8, ny: 4, nz: 1, ordering: pick(["fast", "", [0, 1], [0, 0, 1, 2, 3, 4, 5, 6], new Uint32Array(8), {}, 3]) })],
    ["poisson rhs", () => gpu.poisson({ nx: 8, ny: 4, nz: 1 }).setRhs(pick([new Float64Array(3), new Float64Array(32).fill(NaN), new Float64Array(32).fill(1e39), "x", null]))],
    ["poisson iterate", () => { const s = gpu.poisson({ nx: 8, ny: 4, nz: 1 }); s.setRhs(new Float64Array(32)); return s.iterate(pick([0, -1, 0.5, NaN, 1e9])); }],
    ["poisson solve", () => { const s = gpu.poisson({ nx: 8, ny: 4, nz: 1 }); s.setRhs(new Float64Array(32).fill(1)); return s.solve({ [pick(["tol", "maxIter", "checkEvery"])]: pick([0, -1, NaN, "x"]) }); }],
    ["poisson shader", () => gpu.poisson({ nx: 8, ny: 4, nz: 1 }).shader(pick([2, 99]), "wgsl")],
    ["wave options", () => gpu.wave({ side: 64, lines: 8, [pick(["side", "lines", "lambda2"])]: pick([0, -1, NaN, 1e9, "x"]) })],
    ["wave drop", () => gpu.wave({ side: 32, lines: 4 }).drop(pick([-1, 32, NaN, Infinity]), 1)],
    ["wave heights", () => gpu.wave({ side: 32, lines: 4 }).setHeights(pick([new Float64Array(3), "x", new Float64Array(128).fill(NaN)]), new Float64Array(128))],
    ["wave step", () => gpu.wave({ side: 32, lines: 4 }).step(pick([0, -1, 0.5, NaN, 1e9]))],
    ["float-float mixed", () => gpu[pick(["matmul", "add", "sub", "dot", "mulVec"])](gpu.uploadFloat64(new Float64Array([1, 2, 3, 4]), 2, 2), m22())],
  ];
  const problems = [];
  const seen = new Set();
  for (let i = 0; i < calls; i++) {
    const [name, call] = templates[i < templates.length ? i : Math.floor(rnd() * templates.length)];
    seen.add(name);
    let outcome;
    try {
      const r = call();
      outcome = r && typeof r.then === "function"
        ? await Promise.race([r.then(() => "resolved", (e) => e), new Promise((done) => setTimeout(() => done("hung for 20 s"), 20_000))])
        : "returned";
    } catch (e) {
      outcome = e;
    }
    if (!(outcome instanceof Error)) problems.push(`${name} (call ${i}): ${String(outcome)} instead of an Error`);
    else if (outcome instanceof WebAssembly.RuntimeError || !outcome.message) {
      // A trap leaves the module unusable: stop here and say where.
      problems.push(`${name} (call ${i}): ${outcome}: ${outcome.stack?.split("\n").slice(0, 12).join(" | ")}`);
      return { problems, templates: seen.size, of: templates.length, trapped: true };
    }
  }
  // Still correct afterwards: a product and a dot product.
  const a = gpu.upload(new Float32Array([1, 2, 3, 4]), 2, 2);
  const b = gpu.upload(new Float32Array([5, 6, 7, 8]), 2, 2);
  const c = Array.from(await gpu.matmul(a, b).read());
  const dot = await gpu.dot(a, b);
  return { problems, templates: seen.size, of: templates.length, c, dot, lost: gpu.lost() ?? null };
}

testOnEachBackend(test, "300 seeded bad calls over the whole JS API are clear Errors, and texla computes afterwards", async (backend) => {
  const [r] = await onEachBackend(fuzz, { seed: 2026, calls: 300 }, [backend]);
  assert.deepEqual(r.problems, []);
  assert.equal(r.templates, r.of, "every template ran");
  assert.deepEqual(r.c, [19, 22, 43, 50]);
  assert.equal(r.dot, 70);
  assert.equal(r.lost, null);
});
