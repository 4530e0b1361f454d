// What both Dawn benchmarks share: WebGPU in Node through dawn.node (the npm package `webgpu`,
// Chromium's WebGPU) and texla's pkg/ loaded on it, handed Dawn's GPU object with no global set
// (Gpgpu.create("webgpu", { gpu })). TF.js needs globals of its own: `peerGlobals` sets them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** Command-line option `--name value`, or `fallback`. */
export const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};

/** Opens Dawn (flags separated by ";", one flag may list toggles with commas) and texla's
 * `pkgDir` on it. Returns `{ texla, gpu, adapterInfo, dawnFlags }`; with `requireGpu`, exits if
 * Dawn offers only a software adapter. */
export async function openTexla({ pkgDir, flags = "", requireGpu = false }) {
  const webgpu = await import("webgpu");
  const dawnFlags = String(flags).split(";").map((v) => v.trim()).filter(Boolean);
  const gpuApi = webgpu.create(dawnFlags);
  const probe = await gpuApi.requestAdapter({ powerPreference: "high-performance" });
  if (!probe) throw new Error("Dawn found no WebGPU adapter (Vulkan ICD? see README.md)");
  const i = probe.info ?? {};
  const adapterInfo = { vendor: i.vendor, architecture: i.architecture, device: i.device, description: i.description, fallback: !!(i.isFallbackAdapter ?? probe.isFallbackAdapter) };
  console.log(`Dawn adapter: ${JSON.stringify(adapterInfo)}`);
  if (requireGpu && (adapterInfo.fallback || /swiftshader|llvmpipe|lavapipe/i.test(JSON.stringify(adapterInfo)))) {
    console.error("--require-gpu: Dawn offers only a software adapter; stopping");
    process.exit(2);
  }
  const texla = await import(pathToFileURL(path.join(pkgDir, "texla.js")).href);
  texla.initSync({ module: fs.readFileSync(path.join(pkgDir, "texla_bg.wasm")) });
  // Copies for a lost GPU cost a benchmark their copying; --keep-copies opens as a page does
  // by default (keepCopies: true), --keep-copies=copy with private copies (keepCopies: "copy",
  // what true did before the page's arrays were kept instead).
  const keep = process.argv.find((a) => a.startsWith("--keep-copies"));
  const gpu = await texla.Gpgpu.create("webgpu", { gpu: gpuApi, keepCopies: keep === "--keep-copies=copy" ? "copy" : !!keep });
  if (gpu.backend !== "webgpu") throw new Error(`texla runs ${gpu.backend}, not webgpu`);
  return { texla, gpu, gpuApi, adapterInfo, dawnFlags };
}

/** The globals a peer written for the browser wants (TF.js's WebGPU backend reads
 * navigator.gpu and the GPU* constants): Dawn's `gpuApi` as navigator.gpu. texla needs none. */
export async function peerGlobals(gpuApi) {
  const webgpu = await import("webgpu");
  Object.assign(globalThis, webgpu.globals);
  globalThis.navigator = { gpu: gpuApi, userAgent: `Node.js ${process.version} (dawn.node)`, language: "en", hardwareConcurrency: os.cpus().length };
}

/** texla's built pkg/: `--pkg DIR`, else the repository's or the packed one beside `here`. */
export function findPkg(here) {
  const dir = arg("pkg", [path.join(here, "../../pkg"), path.join(here, "../pkg")].find((d) => fs.existsSync(path.join(d, "texla.js"))));
  if (!dir) throw new Error("no pkg/ found: build it (bash tools/build.sh) or pass --pkg DIR");
  return dir;
}
