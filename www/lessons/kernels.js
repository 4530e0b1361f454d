// Each lesson's kernel: what its "The shader that ran" part shows, from texla's own sources
// (Gpgpu.kernelSources, built without a GPU, so that the page and its printed handout show every
// lesson's kernel before anything has run). A lesson's check replaces it with the sources of the
// kernel that ran, where that kernel ran last (checks.js); else the check ran this very kernel
// inside a loop (CG's update, projected Jacobi's step, NMF's update, the reduction's passes).

import { shuffledSystem } from "./checks-apps.js";

/** Lesson 8's expression: one fragment-shader pass, whatever its length. */
export const FUNCTIONS_EXPR = "a * cos(b) / sqrt(c)";

const of = (operation, options) => (texla) => texla.Gpgpu.kernelSources(operation, options);

/**
 * By lesson: `title` (the kernel, for a person), `sources(texla)` (its KernelSources), and
 * `computeOnly` for a compute kernel, which WebGL2 cannot run (it has no GLSL twin).
 */
export const LESSON_KERNELS = {
  gpu: { title: "add: C = A + B, one fragment per output texel", sources: of("add") },
  texture: { title: "copy: each output texel fetched from the input texture", sources: of("copy") },
  shader: { title: "matmul, the teaching kernel: one output texel per fragment", sources: of("matmul", { kernel: "teaching" }) },
  float: { title: "matmul, the teaching kernel, which made the product of the heatmap", sources: of("matmul", { kernel: "teaching" }) },
  targets: { title: "matmul_fast: one output texel per render target, A's texels fetched once for all", sources: of("matmul", { kernel: "fast" }) },
  compute: { title: "matmul_tiled: the compute path, tiles of A and B in workgroup memory", sources: of("matmul", { kernel: "compute" }), computeOnly: true },
  reduce: { title: "reduce_sum: one 16-fold pass, 4 × 4 texels into one (a last pass adds the four channels)", sources: of("sum") },
  functions: { title: `map("${FUNCTIONS_EXPR}"): the whole expression in one pass`, sources: of("map", { expr: FUNCTIONS_EXPR }) },
  solvers: { title: "CG's update: x + αp and r − αAp in one pass, two render targets", sources: of("cg") },
  lcp: { title: "projected Jacobi's step: x ← max(0, x + ω (Ax + b) / diag(A)), one pass after the product Ax", sources: of("lcpJacobi") },
  simd: { title: "gpu.linear's generated kernel for the natural order (the check anneals a cheaper order first)", sources: (texla) => shuffledSystem(texla).expr.kernelSources() },
  nmf: { title: "the multiplicative update's pass: U ⊙ (F V) ⊘ (U VᵀV + ε), one element-wise pass after the products", sources: of("nmf") },
};
