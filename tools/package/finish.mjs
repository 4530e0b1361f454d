// Finishes pkg/ (wasm-bindgen's output, tools/setup.sh's build_pkg) as texla's npm package, so that
// `npm pack` in pkg/ gives the tarball: the wasm optimised for size by Binaryen's wasm-opt (-Oz
// --converge: its passes again until the wasm stops shrinking, 0.4 KB gzipped less than one round)
// and its imports given short names (tools/package/imports.mjs), the Node entry (node.js),
// package.json with ESM "exports" and the TypeScript types, README.md and both licence texts. tools/setup.sh's build_pkg runs it.
//
//   node tools/package/finish.mjs [pkg-dir]
//
// wasm-opt: $WASM_OPT, else the npm `binaryen` package installed in tools/package/ (setup_build),
// else one on PATH (Debian's `binaryen`).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

import { minifyImports } from "./imports.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const pkg = path.resolve(process.argv[2] ?? path.join(root, "pkg"));
const wasm = path.join(pkg, "texla_bg.wasm");
if (!fs.existsSync(wasm)) throw new Error(`${wasm} is missing: run tools/setup.sh's build_pkg first`);

// The WebAssembly features texla's wasm uses: those rustc's wasm32-unknown-unknown target enables
// by default, and SIMD (.cargo/config.toml), which every browser with WebGPU or WebGL2 has, and
// Node since 16. wasm-opt may use these, no more.
const FEATURES = ["bulk-memory", "mutable-globals", "nontrapping-float-to-int", "sign-ext", "reference-types", "multivalue", "simd"];

function wasmOpt() {
  const local = path.join(here, "node_modules/.bin/wasm-opt");
  return process.env.WASM_OPT || (fs.existsSync(local) ? local : "wasm-opt");
}

const size = (file) => {
  const bytes = fs.readFileSync(file);
  return { bytes: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
};

const before = size(wasm);
const out = `${wasm}.opt`;
try {
  // The producers and target_features sections are metadata for tools (which compiler made the
  // module, which features it uses); no engine reads them: 0.2 KB gzipped.
  const strip = ["--strip-producers", "--strip-target-features"];
  execFileSync(wasmOpt(), ["-Oz", "--converge", ...FEATURES.map((f) => `--enable-${f}`), ...strip, wasm, "-o", out], { stdio: "inherit" });
} catch (e) {
  if (e.code !== "ENOENT") throw e;
  throw new Error("wasm-opt not found: `(cd tools/package && npm ci)` installs it (tools/setup.sh's setup_build does), or set WASM_OPT");
}
fs.renameSync(out, wasm);
const optimized = size(wasm);
const js = path.join(pkg, "texla.js");
const short = minifyImports(fs.readFileSync(wasm), fs.readFileSync(js, "utf8"));
fs.writeFileSync(wasm, short.wasm);
fs.writeFileSync(js, short.js);
const after = size(wasm);
console.log(
  `texla_bg.wasm: ${before.bytes} bytes (${before.gzip} gzipped) -> wasm-opt -Oz --converge -> ${optimized.bytes} bytes ` +
    `(${optimized.gzip} gzipped) -> ${short.count} imports renamed -> ${after.bytes} bytes (${after.gzip} gzipped)`,
);

fs.copyFileSync(path.join(here, "node.js"), path.join(pkg, "node.js"));
for (const file of ["README.md", "LICENSE-MIT", "LICENSE-APACHE"]) {
  fs.copyFileSync(path.join(root, file), path.join(pkg, file));
}

// Name, version, description and licence from Cargo.toml's [package]; the rest is texla's.
const cargo = fs.readFileSync(path.join(root, "Cargo.toml"), "utf8").split(/^\[/m).find((s) => s.startsWith("package]"));
const field = (key) => {
  const found = cargo.match(new RegExp(`^${key} = "(.*)"$`, "m"));
  if (!found) throw new Error(`Cargo.toml's [package] has no ${key}`);
  return found[1];
};
const manifest = {
  name: field("name"),
  version: field("version"),
  description: field("description"),
  license: field("license"),
  keywords: ["webgpu", "webgl2", "gpgpu", "linear-algebra", "matrix", "wasm"],
  type: "module",
  files: ["texla_bg.wasm", "texla.js", "texla.d.ts", "node.js", "README.md", "LICENSE-MIT", "LICENSE-APACHE"]
    .concat(fs.existsSync(path.join(pkg, "snippets")) ? ["snippets/"] : []),
  main: "./texla.js",
  module: "./texla.js",
  types: "./texla.d.ts",
  exports: {
    ".": { types: "./texla.d.ts", node: "./node.js", default: "./texla.js" },
    "./texla_bg.wasm": "./texla_bg.wasm",
    "./package.json": "./package.json",
  },
  // As wasm-bindgen's snippets (inline JavaScript) run when imported.
  sideEffects: fs.existsSync(path.join(pkg, "snippets")) ? ["./snippets/*"] : false,
  engines: { node: ">=20" },
};
fs.writeFileSync(path.join(pkg, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`${path.relative(root, pkg) || "."}/ is the npm package: (cd ${path.relative(root, pkg)} && npm pack)`);
