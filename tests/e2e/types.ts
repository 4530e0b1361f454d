// Every call of docs/api.md, written as a user writes it (optional arguments left out, option
// objects with the documented fields), type-checked against the generated pkg/texla.d.ts by
// `tsc -p tsconfig.json` (strict, no output). Nothing here runs: a call the documentation
// shows that the types refuse, or a result typed otherwise than documented, fails the check.
import init, {
  initSync,
  Gpgpu,
  GpuMatrix,
  LinearExpr,
  PoissonSolver,
  WaveSim,
  Wall,
  type Capabilities,
  type SolveResult,
  type RefineResult,
  type NmfResult,
  type Problem,
  type MemoryStats,
  type ShaderCounts,
  type LinearOptimized,
  type LinearCurve,
  type Counts,
  type CreateOptions,
  type MatrixTexture,
  type MatmulKernel,
  type MatmulOptions,
  type SquareOptions,
  type MulVecOptions,
  type WallStats,
  type WallParts,
  type WallLcp,
} from "../../pkg/texla.js";

await init();
await init({ module_or_path: "./pkg/texla_bg.wasm" });
initSync({ module: new Uint8Array(0) });

// Opening a GPU.
const gpu: Gpgpu = await Gpgpu.create();
await Gpgpu.create("auto");
await Gpgpu.create("webgpu", { memoryBudget: 1 << 20 });
await Gpgpu.create("webgl2", { keepCopies: false, tileLimit: 64 });
await Gpgpu.create("webgl2", { canvas: new OffscreenCanvas(320, 180) });
const createOptions: CreateOptions = { memoryBudget: 1e6, keepCopies: true, tileLimit: 1024 };
await Gpgpu.create(undefined, createOptions);
// @ts-expect-error: the backends are "auto", "webgpu" and "webgl2"
await Gpgpu.create("vulkan");
// WebGPU from a GPU (Node: npm webgpu's create([])) or a page's own GPUDevice.
declare const someGpu: { requestAdapter(options?: object): Promise<unknown> };
declare const someDevice: { readonly queue: object; createTexture(descriptor: object): object };
await Gpgpu.create("webgpu", { gpu: someGpu });
await Gpgpu.create("webgpu", { device: someDevice, keepCopies: false });
// @ts-expect-error: a GPU has requestAdapter()
await Gpgpu.create("webgpu", { gpu: {} });
const backend: "webgpu" | "webgl2" = gpu.backend;
const caps: Capabilities = gpu.capabilities();
const kernelHere: "teaching" | "fast" | "compute" | "registers" | "cpu" = caps.matmulKernel;
const probe: { ieee: boolean; checks: number; failed: string[] } = caps.float32;
const capText: string[] = [caps.adapter, caps.reason, caps.matmulReason];
const capNumbers: number[] = [caps.maxTextureSize, caps.tileLimit];

// Making matrices.
const a: GpuMatrix = gpu.upload(new Float32Array([1, 2, 3, 4, 5, 6]), 2, 3);
const b: GpuMatrix = gpu.upload([1, 0, 0, 1, 1, 1], 3, 2);
const ff: GpuMatrix = gpu.uploadFloat64(new Float64Array([1, 2, 3, 4]), 2, 2);
const z: GpuMatrix = gpu.zeros(2, 2);
const f: GpuMatrix = gpu.fill(2, 2, 0.5);
const i3: GpuMatrix = gpu.identity(3);
const i32: GpuMatrix = gpu.identity(3, 2);

// Products.
let c: GpuMatrix = gpu.matmul(a, b);
c = gpu.matmul(a, a, { transposeA: true });
c = gpu.matmul(a, a, { transposeB: true });
c = gpu.matmul(a, a, { transposeA: true, transposeB: true });
c = gpu.matmul(a, b, { kernel: "auto" });
c = gpu.matmul(a, b, { kernel: "teaching" });
c = gpu.matmul(a, b, { kernel: "fast" });
c = gpu.matmul(a, b, { kernel: "compute" });
c = gpu.matmul(a, b, { kernel: "registers" });
c = gpu.matmul(a, b, { kernel: "cpu" });
c = gpu.matmul(a, b, { kernel: "passes", perPass: 24 });
c = gpu.matmul(a, a, { kernel: "teaching", transposeB: true });
const kernels: MatmulKernel[] = ["auto", "teaching", "fast", "compute", "registers", "cpu", "passes"];
const matmulOptions: MatmulOptions = { kernel: kernels[0], transposeA: false, transposeB: false, perPass: 1 };
c = gpu.matmul(a, a, matmulOptions);
// @ts-expect-error: not a kernel
gpu.matmul(a, b, { kernel: "tiled" });
// @ts-expect-error: the old entry points are gone
gpu.matmulTeaching(a, b);
c = gpu.square(z);
c = gpu.square(z, { kernel: "fast" });
c = gpu.square(z, { kernel: "teaching" });
c = gpu.square(z, { kernel: "passes", perPass: 2 });
const squareOptions: SquareOptions = { kernel: "auto" };
c = gpu.square(z, squareOptions);
// @ts-expect-error: a square has no transposes
gpu.square(z, { transposeA: true });
const x: GpuMatrix = gpu.upload([1, 2, 3], 3, 1);
c = gpu.mulVec(a, x);
c = gpu.mulVec(a, x, { kernel: "auto" });
c = gpu.mulVec(a, x, { kernel: "blocked" });
c = gpu.mulVec(a, x, { kernel: "naive" });
c = gpu.mulVec(a, x, { kernel: "compute" });
const mulVecOptions: MulVecOptions = { kernel: "blocked" };
c = gpu.mulVec(a, x, mulVecOptions);
// @ts-expect-error: mulVec's kernels are "auto", "blocked", "naive" and "compute"
gpu.mulVec(a, x, { kernel: "fast" });
c = gpu.transpose(a);

// Element-wise operations.
c = gpu.copy(a);
c = gpu.add(a, a);
c = gpu.sub(a, a);
c = gpu.componentMul(a, a);
c = gpu.scale(a, 2);
c = gpu.maxScalar(a, 0);
c = gpu.addScaled(a, a, 3);
c = gpu.madad(a, a, a, a);
c = gpu.map("a * cos(b) / sqrt(c)", [a, a, a]);
const [sin, cos]: [GpuMatrix, GpuMatrix] = gpu.sincos(a);
const functions: string[] = Gpgpu.functions();
const program: string[] = Gpgpu.expressionProgram("a * cos(b)");
const javascript: string = Gpgpu.expressionAsJavaScript("a * cos(b)");

// Reductions.
const reductions: number[] = [await gpu.dot(a, a), await gpu.normSquared(a), await gpu.sum(a)];

// Solvers.
const p: Problem = Gpgpu.problem("poisson1d", 100, 1);
Gpgpu.problem("jacobi", 64, 3, 1.2);
const pa: Float32Array | null = p.a;
const pb: Float32Array = p.b;
const px: Float64Array = p.x;
const pn: number = p.n;
const pgrid: number | null = p.grid;
const A = gpu.upload(pb, p.n, 1);
const controller = new AbortController();
let r: SolveResult = await gpu.cg(A, A);
r = await gpu.cg(A, A, {
  tol: 1e-6, maxIter: 500, fused: true, x0: A, signal: controller.signal,
  onProgress: (iteration: number, of: number, residual: number | null) => {},
});
r = await gpu.cgPoisson2d(A);
r = await gpu.cgPoisson2d(A, { tol: 1e-4, maxIter: 100, x0: A });
r = await gpu.jacobi(A, A);
r = await gpu.jacobi(A, A, { tol: 1e-5, maxIter: 100, checkEvery: 2, onProgress: () => {}, signal: controller.signal });
r = await gpu.lcpJacobi(A, A);
r = await gpu.lcpJacobi(A, A, { omega: -0.1, iterations: 800, x0: A, residual: true, onProgress: () => {}, signal: controller.signal });
r = await gpu.lcpJacobi(A, A, { kernel: "fragment" });
r = await gpu.lcpJacobi(A, A, { kernel: "compute", workgroups: 1, iterations: 64 });
// @ts-expect-error: lcpJacobi's kernels are "fragment" and "compute"
await gpu.lcpJacobi(A, A, { kernel: "fast" });
const solved: [GpuMatrix, number, Float64Array, boolean, number, number] = [r.x, r.iterations, r.residuals, r.converged, r.passes, r.readbacks];
let refined: RefineResult = await gpu.refine(ff, ff);
refined = await gpu.refine(ff, ff, {
  solver: "jacobi", tol: 1e-10, innerTol: 1e-4, maxOuter: 20, maxInner: 1000,
  onProgress: (outer: number, maxOuter: number, residual: number | null) => {}, signal: controller.signal,
});
const refinedCounts: [number, number, Float64Array] = [refined.outer, refined.inner, refined.innerPerOuter];

// NMF.
const images: Float32Array = Gpgpu.partsImages(64);
Gpgpu.partsImages(64, 2);
const F = gpu.upload(images, 361, 64);
let nmf: NmfResult = await gpu.nmf(F, 8);
nmf = await gpu.nmf(F, 8, {
  iterations: 20, rule: "divergence", order: "simultaneous", normalize: true, u0: F, v0: F,
  eps: 1e-9, seed: 1, checkEvery: 5, onProgress: (iteration: number, of: number, error: number | null) => {},
  signal: controller.signal,
});
const factors: [GpuMatrix, GpuMatrix, Float64Array, Float64Array, number, number, number, number] = [
  nmf.u, nmf.v, nmf.errors, nmf.checks, nmf.iterations, nmf.passes, nmf.readbacks, nmf.msPerIteration,
];

// SIMD expressions.
let e: LinearExpr = LinearExpr.fromDense(new Float64Array(16), 4);
e = LinearExpr.fromDense([1, 0, 0, 1], 2, [1, 2]);
e = LinearExpr.fromDense(new Float64Array(4), 2, new Float64Array(2));
e = LinearExpr.example("rk-cars");
const size: number = e.size;
const costs: number[] = [e.cost(), e.costGaussSeidel()];
let found: LinearOptimized = e.optimize();
found = e.optimize({ seed: 1, moves: 40000, history: true });
const curves: LinearCurve[] | undefined = found.curves;
const foundParts: [number, Uint32Array, string] = [found.cost, found.permutation, found.foundBy];
e = e.permute(found.permutation);
e = e.permute([0, 1, 2, 3]);
const perm: Uint32Array = e.permutation;
const matrix: Float64Array = e.matrix();
const bias: Float64Array | undefined = e.b();
const instructions: string[] = e.instructions();
const constants: Float64Array = e.constants();
const wgsl: string = e.shader("wgsl");
e.shader("glsl");
const counts: { wgsl: ShaderCounts; glsl: ShaderCounts } = e.counts();
c = gpu.linear(e, a);

// Stencils.
let solver: PoissonSolver = gpu.poisson();
solver = gpu.poisson({ nx: 8, ny: 8, nz: 1, ordering: "optimized" });
solver = gpu.poisson({ ordering: [4, 7, 0, 3, 1, 5, 6, 2] });
gpu.poisson({ ordering: new Uint32Array(8) });
const dims: number[] = Array.from(solver.dims);
const ordering: string = solver.ordering;
const linePerm: Uint32Array = solver.permutation;
const solverCost: { s: number; product: number; operations: number; efficiency: number } = solver.cost();
const solverCounts: { wgsl: ShaderCounts; glsl: ShaderCounts } = solver.counts();
const slabShader: string = solver.shader(0, "wgsl");
const rhs: Float64Array = solver.rhs(1);
solver.setRhs(rhs);
solver.setRhs(rhs, new Float64Array(rhs.length));
solver.setRhs([1, 2, 3]);
await solver.iterate(10);
const solution: Float64Array = await solver.solution();
let solve: { iterations: number; residual: number; converged: boolean; history: Float64Array } = await solver.solve();
solve = await solver.solve({ tol: 1e-4, maxIter: 1000, checkEvery: 5 });
const float64Iterations: (number | null)[] = solver.iterationsFloat64(rhs, [1e-3, 1e-4], 5000);

let wave: WaveSim = gpu.wave();
wave = gpu.wave({ side: 64, lines: 64, lambda2: 0.25, ordering: "optimized" });
const waveDims: number[] = Array.from(wave.dims);
const wavePerm: Uint32Array = wave.permutation;
const waveCost: { sStar: number; product: number } = wave.cost();
const waveCounts: { wgsl: ShaderCounts; glsl: ShaderCounts } = wave.counts();
const waveShader: string = wave.shader(0, "glsl");
wave.step();
wave.step(10);
const heights: Float32Array = await wave.heights();
wave.setHeights(heights, heights);
wave.setHeights(new Float64Array(heights.length), new Float64Array(heights.length));
await wave.drop(32, 32);
await wave.drop(32, 32, 1, 6);

// The wall.
let wall: Wall = gpu.wall();
wall = gpu.wall(1);
wall = gpu.wall(1, 10);
const prepared: Promise<void> = wall.prepare();
await prepared;
const stepped: WallStats = await wall.step();
const stats: WallStats = wall.stats();
const parts: WallParts = stats.parts;
const frameStats: number[] = [stepped.frame, stepped.bodies, stepped.asleep, stepped.contacts, stepped.lcpSize,
  stepped.iterations, stats.solveMs, stats.cpuMs, stats.frameMs, stats.residual, stats.penetration, stats.energy,
  stats.energyIn, stats.omega, stats.step, parts.contacts, parts.assembly, parts.step, parts.layout, parts.upload,
  parts.solve, parts.end];
const islands: number[] = stats.islands;
const settings: ["dense" | "blocks", "jacobi" | "nesterov" | "gauss-seidel" | "soft", boolean] = [stats.mode, stats.solver, stats.sleeping];
const cancelled: boolean = wall.cancel();
wall.reset();
wall.reset(2);
wall.reset(2, 1);
wall.draw();
const canvas: HTMLCanvasElement | OffscreenCanvas = wall.canvas();
wall.orbit(0.1, 0, 1);
wall.throwBall(0, 0.1);
const hit: boolean = wall.push(0, 0);
wall.push(0, 0, 60);
wall.preset("seed");
wall.setSolver("jacobi");
wall.setSolver("soft");
wall.setMode("dense");
wall.setIterations();
wall.setIterations(80);
wall.setOmega(-0.1);
wall.setSleeping(true);
const positions: Float64Array = wall.positions();
const velocities: Float64Array = wall.velocities();
const lcp: WallLcp | null = wall.lcp();
if (lcp) {
  const lcpArrays: Float64Array[] = [lcp.a, lcp.b, lcp.x0, lcp.x];
  const lcpNumbers: number[] = [lcp.contacts, lcp.size, lcp.mu, lcp.omega, lcp.step, lcp.iterations];
  const lcpIsland: Uint32Array = lcp.island;
  const lcpSolver: "jacobi" | "nesterov" | "gauss-seidel" | "soft" = lcp.solver;
}

// Memory, counts, shaders, the GPU's state.
const memory: MemoryStats = gpu.memory();
const memoryNumbers: number[] = [memory.liveTextures, memory.liveBytes, memory.pooledTextures, memory.pooledBytes, memory.peakBytes, memory.spareCopyBytes, memory.evictions];
const budget: number | null = memory.budget;
const scopeNumbers: number[] = [memory.liveMatrices, memory.scopes, memory.scopedMatrices];
const scoped: GpuMatrix = gpu.scope(() => gpu.add(a, a));
const scopedPair: [GpuMatrix, GpuMatrix] = gpu.scope(() => [gpu.add(a, a), gpu.sub(a, a)] as [GpuMatrix, GpuMatrix]);
const scopedLater: { x: GpuMatrix } = await gpu.scope(async () => ({ x: gpu.add(a, a) }));
{
  using disposed = gpu.add(a, a);
}
const passCounts: Counts = gpu.counts();
const passes: number = gpu.counts().passes - passCounts.passes + passCounts.readbacks;
gpu.resetPeak();
gpu.releasePooled();
const lastShader: string | undefined = gpu.lastShader();
const lastShaders: { wgsl: string; glsl: string | null } | undefined = gpu.lastShaders();
await gpu.finish();
gpu.loseContext();
const lost: string | undefined = gpu.lost();
const restored: { restored: number; lost: number } = await gpu.restore();

// GpuMatrix.
const shape: number[] = [a.rows, a.cols, a.id];
const isFloatFloat: boolean = a.floatFloat;
const values: Float32Array = await a.read();
const wide: Float64Array = await a.readFloat64();
const ffValues: Float64Array = await ff.readFloat64();
const out: Float32Array = await a.readInto(new Float32Array(6));
const ffOut: Float64Array = await ff.readInto(new Float64Array(4));
const element: number = await a.get(0, 1);
await a.set(0, 1, 5);
a.addAssign(a);
a.scaleMut(2);
a.addScaledMut(a, 3);
a.addComponentMulMut(a, a);
const shared: MatrixTexture = a.texture();
const texture: unknown = shared.texture;
const texels: number[] = [shared.width, shared.height, shared.rows, shared.cols];
const format: "rgba32float" = shared.format;
const device: unknown = gpu.device();
const gl: WebGL2RenderingContext = gpu.glContext();
a.free();
{
  using temporary = gpu.zeros(2, 2);
  temporary.scaleMut(2);
}
gpu.free();

export {};
