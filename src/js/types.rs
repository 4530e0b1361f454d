//! The TypeScript types of the API's options and results: the one custom section of the
//! generated `texla.d.ts`, so that it opens the file (its first line is a `/// <reference lib>`
//! directive, which TypeScript reads only before any declaration).

use wasm_bindgen::prelude::*;

/// The TypeScript types of the API's options and results. It opens the generated `texla.d.ts`,
/// so its first line may be the directive that gives every class's `[Symbol.dispose]()` (and
/// `using`) its type under any target, where `lib` lacks `esnext.disposable` (TypeScript 5.2
/// or later).
#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"/// <reference lib="esnext.disposable" />

/** What `Gpgpu.capabilities()` returns: the facts of the page's capability panel. */
export interface Capabilities {
  /** "webgpu" or "webgl2". */
  backend: "webgpu" | "webgl2";
  /** The adapter (WebGPU) or renderer (WebGL2), as the browser names it. */
  adapter: string;
  /** Largest texture side: matrices up to 4*max rows and max columns. */
  maxTextureSize: number;
  /** The largest texture side texla uses (the option `tileLimit`, else maxTextureSize): larger
   *  matrices are grids of tiles. */
  tileLimit: number;
  /** Why this backend runs and why the other one was not used. */
  reason: string;
  /** The kernel `matmul` and `square` run here by default (kernel "auto"): "cpu" on a software
   * adapter, for operands whose values are held on the CPU (float32 uploads with keepCopies,
   * and "cpu" results; others take that backend's GPU kernel); `mulVec` runs "compute" where
   * this is "compute", else "blocked". */
  matmulKernel: "teaching" | "fast" | "compute" | "registers" | "cpu";
  /** Why that kernel, in a sentence for the page. */
  matmulReason: string;
  /** The precision probe run at create: whether this GPU adds, multiplies and stores as IEEE
   * float32 does (rounding at 2^24, exact integer products, NaN and infinity, 24 stored bits),
   * how many checks ran and which failed, with what came back. */
  float32: { ieee: boolean; checks: number; failed: string[] };
}

/** The kernels of `Gpgpu.matmul` and `Gpgpu.square`: "auto" (the default) runs
 * `capabilities().matmulKernel`; "compute" and "registers" need WebGPU; "cpu" multiplies on the
 * CPU, in wasm SIMD, operands whose values are held there. */
export type MatmulKernel = "auto" | "teaching" | "fast" | "compute" | "registers" | "cpu" | "passes";
/** Options of `Gpgpu.matmul`: the kernel, A^T and/or B^T instead of A and B (not built by the
 * caller), and the inner indices per pass of kernel "passes" (default 1). */
export interface MatmulOptions { kernel?: MatmulKernel; transposeA?: boolean; transposeB?: boolean;
  perPass?: number; }
/** Options of `Gpgpu.square`: as `MatmulOptions`, without transposes. */
export interface SquareOptions { kernel?: MatmulKernel; perPass?: number; }
/** Options of `Gpgpu.mulVec`: the kernel ("auto", the default: "compute" where `matmul` runs
 * the compute kernel, else "blocked"; "compute" needs WebGPU). */
export interface MulVecOptions { kernel?: "auto" | "blocked" | "naive" | "compute"; }

/** Options of `Gpgpu.create`: a memory budget in bytes of textures, which copies matrices keep
 * to come back after a lost GPU (true, the default: the arrays uploaded from and read into,
 * left unchanged by the page; "copy": private copies; false: none), a smaller largest
 * texture side, where WebGPU comes from: a `GPU` (`gpu`: in Node, npm webgpu's `create([])`) or
 * a `GPUDevice` the page owns (`device`, shared), instead of `navigator.gpu`, and a canvas. */
export interface CreateOptions { memoryBudget?: number; keepCopies?: boolean | "copy"; tileLimit?: number;
  /** Whether float32 uploads are held on the CPU and `matmul` multiplies them there, in wasm
   * SIMD (kernel "cpu"): by default on a software adapter only. */
  cpuProducts?: boolean;
  /** The canvas the wall draws into (on WebGL2, texla computes in its context too). */
  canvas?: HTMLCanvasElement | OffscreenCanvas; gpu?: WebGpuGpu; device?: WebGpuDevice; }
/** What `GpuMatrix.texture()` returns: the matrix's texture (a `GPUTexture` on WebGPU, a
 * `WebGLTexture` on WebGL2; typed `any` so that texla's types need no `@webgpu/types`), its
 * format and size in texels (`cols` wide, `ceil(rows / 4)` high, four rows a texel), and the
 * matrix's shape. */
export interface MatrixTexture { texture: any; format: "rgba32float"; width: number;
  height: number; rows: number; cols: number; }
/** A WebGPU `GPU` (`navigator.gpu`, or npm webgpu's `create([])`), typed by what texla calls so
 * that its types need no `@webgpu/types`. */
export interface WebGpuGpu { requestAdapter(options?: any): Promise<any>; }
/** A WebGPU `GPUDevice`, typed by what texla calls (any `GPUDevice` is one). */
export interface WebGpuDevice { readonly queue: any; createTexture(descriptor: any): any; }

/** What `Gpgpu.counts()` returns: GPU passes run and read-backs made since the Gpgpu opened. */
export interface Counts { passes: number; readbacks: number; }

/** `Gpgpu.scope`: runs `fn` and frees every matrix made while it ran except those it returns
 * (a GpuMatrix, or arrays and plain objects holding them); an async `fn` gives its promise, and
 * the matrices go once it settles. */
export interface Gpgpu {
  scope<T>(fn: () => T): T;
}

/** `GpuMatrix.readInto`, one overload per kind of matrix: a float32 matrix reads into a
 * Float32Array, a float-float one into a Float64Array (hi + lo); each resolves to `out`. */
export interface GpuMatrix {
  /** Reads this float32 matrix back into `out` (exactly rows * cols values, kept by the page:
   * no new array each time) and resolves to `out`. */
  readInto(out: Float32Array): Promise<Float32Array>;
  /** Reads this float-float matrix back into `out` as hi + lo and resolves to `out`. */
  readInto(out: Float64Array): Promise<Float64Array>;
}

/** Options of `Gpgpu.cg`. */
export interface CgOptions { x0?: GpuMatrix; tol?: number; maxIter?: number; fused?: boolean;
  onProgress?: (iteration: number, of: number, residual: number | null) => void; signal?: AbortSignal; }
/** Options of `Gpgpu.jacobi`. */
export interface JacobiOptions { tol?: number; maxIter?: number; checkEvery?: number;
  onProgress?: (iteration: number, of: number, residual: number | null) => void; signal?: AbortSignal; }
/** Options of `Gpgpu.lcpJacobi`; omega is negative (x + omega D (Ax + b)). Kernel "fragment"
 * (the default) runs a pass per iteration; "compute" (WebGPU) many iterations per dispatch,
 * shared by `workgroups` (1 needs no GPU-wide barrier; "compute" only), and reports no residual
 * to `onProgress`. */
export interface LcpOptions { omega?: number; iterations?: number; x0?: GpuMatrix; residual?: boolean;
  kernel?: "fragment" | "compute"; workgroups?: number;
  onProgress?: (iteration: number, of: number, residual: number | null) => void; signal?: AbortSignal; }
/** What the solvers resolve to: the solution stays on the GPU (float-float, `x.floatFloat`,
 * where `cg` was given float-float A and b from `uploadFloat64`). */
export interface SolveResult { x: GpuMatrix; iterations: number; residuals: Float64Array;
  converged: boolean; passes: number; readbacks: number; }
/** Options of `Gpgpu.refine` (float-float A and b): the float32 solver of the corrections,
 * the outer tolerance (float-float relative residual, default 1e-10), each inner solve's
 * relative tolerance (default 1e-4), outer steps at most (20) and inner iterations per step
 * (1000). */
export interface RefineOptions { solver?: "cg" | "jacobi"; tol?: number; innerTol?: number;
  maxOuter?: number; maxInner?: number;
  onProgress?: (outer: number, maxOuter: number, residual: number | null) => void; signal?: AbortSignal; }
/** What `Gpgpu.refine` resolves to: a SolveResult (x float-float, iterations = outer steps)
 * plus the outer steps, the inner iterations in all and per outer step. */
export interface RefineResult extends SolveResult { outer: number; inner: number;
  innerPerOuter: Float64Array; }
/** Options of `Gpgpu.nmf`. */
export interface NmfOptions { iterations?: number; rule?: "euclidean" | "divergence";
  order?: "alternating" | "simultaneous"; normalize?: boolean; u0?: GpuMatrix; v0?: GpuMatrix;
  eps?: number; seed?: number; checkEvery?: number;
  onProgress?: (iteration: number, of: number, error: number | null) => void; signal?: AbortSignal; }
/** What `Gpgpu.nmf` resolves to: U (m x k) and V (n x k) stay on the GPU; errors[i] is
 * ||F - U V^T||_F^2 after checks[i] iterations. */
export interface NmfResult { u: GpuMatrix; v: GpuMatrix; errors: Float64Array; checks: Float64Array;
  iterations: number; passes: number; readbacks: number; msPerIteration: number; }
/** Options of `LinearExpr.optimize`: the annealer's seed (0 to 2^32 - 1, default 1), moves
 * (0 to 1,000,000, default 40,000), and history (default false: also return the curves). */
export interface LinearOptimizeOptions { seed?: number; moves?: number; history?: boolean; }
/** Options of `Gpgpu.poisson` (the SIMD-optimization paper's enhanced block Jacobi solver): the grid (nz = 1: 2D)
 * and the order of its x-lines. */
export interface PoissonOptions { nx?: number; ny?: number; nz?: number;
  ordering?: "natural" | "optimized" | ArrayLike<number>; }
/** Options of `Gpgpu.wave` (the SIMD-optimization paper's 512 x 512 wave). */
export interface WaveOptions { side?: number; lines?: number; lambda2?: number;
  ordering?: "natural" | "optimized"; }
/** Operations and texel fetches of generated kernels, counted in their source text. */
export interface ShaderCounts { fma: number; mul: number; add: number; dot: number;
  fetches: number; ops: number; }
/** One annealing run of `optimize` (the paper's Fig. 8): where it started, and its current cost
 * before the first move and after every `every` moves. */
export interface LinearCurve { from: string; every: number; costs: Uint32Array; }
/** What `LinearExpr.optimize` returns: the cheapest cost found, the permutation that reaches it
 * (relative to the expression optimised: an argument for `permute`), and where it came from
 * ("identity", "stride 10", "annealed from ..."). */
export interface LinearOptimized { cost: number; permutation: Uint32Array; foundBy: string;
  /** With `history: true`: the restarts' curves. */
  curves?: LinearCurve[]; }
/** A test problem with its known solution x. */
export interface Problem {
  n: number;
  /** The side of a 2D Poisson grid, else null. */
  grid: number | null;
  /** The matrix, row-major; null for a 2D Poisson grid past 64 x 64 (see `cgPoisson2d`). */
  a: Float32Array | null;
  b: Float32Array;
  x: Float64Array;
}

/** Where a wall frame's milliseconds went, as the native benchmark reports them. */
export interface WallParts { contacts: number; assembly: number; step: number; layout: number;
  upload: number; solve: number; end: number; }
/** What `Wall.stats()` returns and `Wall.step()` resolves to: what the last frame did. */
export interface WallStats {
  frame: number;
  bodies: number;
  /** Bodies asleep. */
  asleep: number;
  /** Contacts solved (none of a sleeping island). */
  contacts: number;
  /** The LCP size of each island, largest first. */
  islands: number[];
  lcpSize: number;
  iterations: number;
  /** The GPU part, ms: upload to read-back. */
  solveMs: number;
  /** The CPU's parts, ms. */
  cpuMs: number;
  frameMs: number;
  parts: WallParts;
  /** Where the frame's narrow phase ran: on the GPU in float32 from 4000 bodies on a hardware
   * WebGPU adapter, else on the CPU in float64. */
  narrowPhase: "cpu" | "gpu";
  /** Complementarity residual of the applied impulses (float64), m/s; NaN for the soft step. */
  residual: number;
  /** Deepest penetration, m. */
  penetration: number;
  /** Energy now and put in so far, J. */
  energy: number;
  energyIn: number;
  mode: "dense" | "blocks";
  omega: number;
  solver: "jacobi" | "nesterov" | "gauss-seidel" | "soft";
  /** The step or relaxation the last frame's solver used (negative, seed convention). */
  step: number;
  sleeping: boolean;
}
/** What `Wall.lcp()` returns: the last frame's LCP and the GPU's answer, for checking in
 * float64; unknowns per contact in the order normal, tangent, tangent. */
export interface WallLcp {
  contacts: number;
  size: number;
  /** The dense size x size matrix, row-major. */
  a: Float64Array;
  b: Float64Array;
  x0: Float64Array;
  /** The GPU's impulses. */
  x: Float64Array;
  mu: number;
  solver: "jacobi" | "nesterov" | "gauss-seidel" | "soft";
  omega: number;
  step: number;
  iterations: number;
  /** The island of each contact. */
  island: Uint32Array;
  /** The colour of each contact: contacts of one colour share no moving body (Gauss-Seidel). */
  colour: Uint32Array;
}

/** What `Gpgpu.memory()` returns: textures held by matrices and kept for reuse, and the most
 * bytes (live plus pooled) held at once since the Gpgpu opened or since `resetPeak()`. */
export interface MemoryStats {
  /** Matrices held (by the page or an open scope) and not freed. */
  liveMatrices: number;
  /** Scopes open now (`gpu.scope`), and the matrices made in them so far. */
  scopes: number;
  scopedMatrices: number;
  liveTextures: number;
  liveBytes: number;
  pooledTextures: number;
  pooledBytes: number;
  peakBytes: number;
  /** JavaScript memory, not GPU, shared by the page's Gpgpu objects: large copies
   * (`keepCopies: "copy"`) that freed or changed matrices let go, kept to take the next copies of
   * their length (at most 256 MiB; `releasePooled()` drops them). */
  spareCopyBytes: number;
  /** The `memoryBudget` asked for at create, or null. */
  budget: number | null;
  /** Matrices moved to CPU copies by the budget so far. */
  evictions: number;
}

/** A kernel of your own for `Gpgpu.runKernel`: its body in the language of the backend that
 * runs (both may be given). The WGSL body defines `fn kernel(texel: vec2<i32>) -> vec4<f32>`,
 * the GLSL ES 3.00 one `vec4 kernel(ivec2 texel)`, returning output texel `texel` (rows
 * 4 texel.y .. +3 of column texel.x); inputs are `a`, `b`, ... with `a_texel(x, y)`, `a_rows()`,
 * `a_cols()`, `a_width()`, `a_height()`; `out_rows()`, `out_cols()`, `param(i)` and
 * `mask_padding(y, v)` come with the prelude (shaders/README.md). With `compute` (WebGPU only)
 * the WGSL body is a compute shader instead: `@compute @workgroup_size(..) fn cs_main(...)`
 * storing texels into `out_tex` with `textureStore`, dispatched as the output's texels divided
 * by `perGroup` (columns, texel rows per workgroup). */
export interface KernelSource { wgsl?: string; glsl?: string;
  compute?: { perGroup: [number, number] } | null; }
/** Options of `Gpgpu.runKernel`: the output's shape, and up to 8 numbers for `param(i)`. */
export interface RunKernelOptions { rows: number; cols: number; params?: ArrayLike<number>; }
/** What `Gpgpu.lastKernel` returns: the last pass's kernel, its bodies (not the whole modules:
 * see `lastShaders`), the inputs it read, its render targets, its compute dispatch (null for a
 * fragment kernel; `scratch`: it also had scratch storage, which `runKernel` does not give),
 * its output's shape and its parameters. */
export interface LastKernel { name: string; wgsl: string; glsl: string; inputs: number;
  outputs: number; compute: { perGroup: [number, number]; scratch: boolean } | null;
  rows: number; cols: number; params: number[]; }

/** A kernel's sources: the complete WGSL module and its GLSL ES 3.00 twin (null for a compute
 *  kernel), and in `own` the kernel's own lines of each (no prelude, accessors, helper library
 *  or entry point). */
export interface KernelSources { name: string; wgsl: string; glsl: string | null;
  own: { wgsl: string; glsl: string | null }; }
/** Options of `Gpgpu.upload`. */
export interface UploadOptions { dtype?: "float32" | "float16"; }
/** Options of `Gpgpu.kernelSources`. */
export interface KernelSourcesOptions { expr?: string; kernel?: "teaching" | "fast" | "compute";
  targets?: number; chunk?: number; last?: boolean; }
"#;
