// texla's entry for Node (package.json "exports" -> "node"): the module texla.js, with an init()
// that reads the wasm beside this file. wasm-bindgen's init() fetches a URL, and Node's fetch
// cannot load a file: URL ("fetch failed").
import { readFile } from "node:fs/promises";
import init from "./texla.js";

export * from "./texla.js";

/** Loads texla's wasm: from the package's own texla_bg.wasm when given nothing or a file: URL,
 * else as the browser's init() does (bytes, a WebAssembly.Module, a Response). */
export default async function initNode(moduleOrPath) {
  let source = moduleOrPath;
  if (source !== null && typeof source === "object" && Object.getPrototypeOf(source) === Object.prototype) {
    source = source.module_or_path;
  }
  if (source === undefined) {
    source = new URL("./texla_bg.wasm", import.meta.url);
  }
  if (source instanceof URL && source.protocol === "file:") {
    source = await readFile(source);
  }
  return init({ module_or_path: source });
}
