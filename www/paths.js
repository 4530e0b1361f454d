// texla's ways of multiplying n x n matrices, timed by the page's products benchmark and by the
// peer benchmark (bench/peers). Adding a path is one line: `method` is the Gpgpu method
// ("matmul", or "square" for a method of one matrix, M·M), `kernel` its option (none: the
// default, the fastest kernel here), `name` what the peer benchmark calls it, `key` names its
// benchmark columns (`${key}E2E`, `${key}Resident`, `${key}Peak`), `backends` where it runs.

export const MATMUL_PATHS = [
  // The default products: the fastest kernel for the adapter (capabilities().matmulKernel).
  { method: "square", name: "square", key: "square", label: "square (default: fastest here)", square: true, backends: ["webgpu", "webgl2"] },
  { method: "matmul", name: "matmul", key: "mul", label: "matmul (default: fastest here)", backends: ["webgpu", "webgl2"] },
  // The teaching kernel: one output texel per fragment.
  { method: "square", kernel: "teaching", name: "square teaching", key: "squareTeaching", label: "square, kernel teaching (fragment)", square: true, backends: ["webgpu", "webgl2"] },
  { method: "matmul", kernel: "teaching", name: "matmul teaching", key: "mulTeaching", label: "matmul, kernel teaching (fragment)", backends: ["webgpu", "webgl2"] },
  { method: "matmul", kernel: "compute", name: "matmul compute", key: "compute", label: "matmul, kernel compute (WebGPU compute)", backends: ["webgpu"] },
  { method: "matmul", kernel: "registers", name: "matmul registers", key: "registers", label: "matmul, kernel registers (WebGPU compute, registers only)", backends: ["webgpu"] },
  // The fast fragment kernels: several render targets, one output texel per target.
  { method: "square", kernel: "fast", name: "square fast", key: "squareFast", label: "square, kernel fast (fragment, multi-target)", square: true, backends: ["webgpu", "webgl2"] },
  { method: "matmul", kernel: "fast", name: "matmul fast", key: "mulFast", label: "matmul, kernel fast (fragment, multi-target)", backends: ["webgpu", "webgl2"] },
];

/** The paths that run on `gpu` (its backend). */
export function pathsOn(gpu) {
  return MATMUL_PATHS.filter((p) => p.backends.includes(gpu.backend));
}

/** One product on path `p`: x·b, or x·x for a squaring path. */
export function step(gpu, p, x, b) {
  const options = p.kernel ? { kernel: p.kernel } : undefined;
  return p.square ? gpu.square(x, options) : gpu.matmul(x, b, options);
}
