// texla's ways of multiplying n x n matrices, timed by the page's products benchmark and by the
// peer benchmark (bench/peers). Adding a path is one line: `method` is the Gpgpu method, `key`
// names its benchmark columns (`${key}E2E`, `${key}Resident`, `${key}Peak`), `square` marks a
// method of one matrix (M·M), `backends` where it runs. A method missing from the built pkg/ is
// skipped, so the list may name paths of a newer build.

export const MATMUL_PATHS = [
  // The default products: the fastest kernel for the adapter (capabilities().matmulKernel).
  { method: "square", key: "square", label: "square (default: fastest here)", square: true, backends: ["webgpu", "webgl2"] },
  { method: "matmul", key: "mul", label: "matmul (default: fastest here)", backends: ["webgpu", "webgl2"] },
  // The teaching kernel: one output texel per fragment.
  { method: "squareTeaching", key: "squareTeaching", label: "squareTeaching (fragment)", square: true, backends: ["webgpu", "webgl2"] },
  { method: "matmulTeaching", key: "mulTeaching", label: "matmulTeaching (fragment)", backends: ["webgpu", "webgl2"] },
  { method: "matmulCompute", key: "compute", label: "matmulCompute (WebGPU compute)", backends: ["webgpu"] },
  { method: "matmulRegisters", key: "registers", label: "matmulRegisters (WebGPU compute, registers only)", backends: ["webgpu"] },
  // The fast fragment kernels: several render targets, one output texel per target.
  { method: "squareFast", key: "squareFast", label: "squareFast (fragment, multi-target)", square: true, backends: ["webgpu", "webgl2"] },
  { method: "matmulFast", key: "mulFast", label: "matmulFast (fragment, multi-target)", backends: ["webgpu", "webgl2"] },
];

/** The paths that run on `gpu` (its backend, and a method the build has). */
export function pathsOn(gpu) {
  return MATMUL_PATHS.filter((p) => p.backends.includes(gpu.backend) && typeof gpu[p.method] === "function");
}

/** One product on path `p`: x·b, or x·x for a squaring path. */
export function step(gpu, p, x, b) {
  return p.square ? gpu[p.method](x) : gpu[p.method](x, b);
}
