// Short names for the wasm's imports (tools/package/finish.mjs). wasm-bindgen names each function
// the wasm imports from texla.js after its Rust path and a hash (`__wbg_createTexture_` and 16 hex
// digits), all from the module "./texla_bg.js": 496 names, 23 KB of the import section and 8 KB
// gzipped, the hex digits incompressible. Only texla.js's `__wbg_get_imports` reads these names
// (the object it hands to WebAssembly.instantiate), so both sides are renamed here, to "t" and "a",
// "b", ... "ba", ...; the exports, which init() returns, keep theirs.

const MODULE = "./texla_bg.js";
const SHORT_MODULE = "t";

function uleb(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

/** The `index`th short name: a JavaScript identifier of letters and digits. */
function shortName(index) {
  const first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const rest = `${first}0123456789`;
  let name = first[index % first.length];
  for (let i = Math.floor(index / first.length); i > 0; i = Math.floor((i - 1) / rest.length)) {
    name += rest[(i - 1) % rest.length];
  }
  return name;
}

/** `wasm` (bytes) and `js` (wasm-bindgen's texla.js) with the imports of MODULE renamed. */
export function minifyImports(wasm, js) {
  let at = 0;
  const byte = () => wasm[at++];
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = byte();
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
  };
  const text = (bytes) => Buffer.from(bytes).toString("utf8");
  const encoded = (s) => [...uleb(Buffer.byteLength(s)), ...Buffer.from(s)];

  const renamed = new Map();
  const parts = [wasm.subarray(0, 8)];
  at = 8;
  while (at < wasm.length) {
    const sectionStart = at;
    const id = byte();
    const size = leb();
    const start = at;
    if (id !== 2) {
      at = start + size;
      parts.push(wasm.subarray(sectionStart, at));
      continue;
    }
    const count = leb();
    const section = [...uleb(count)];
    for (let i = 0; i < count; i++) {
      let length = leb();
      const module = text(wasm.subarray(at, (at += length)));
      length = leb();
      const name = text(wasm.subarray(at, (at += length)));
      const descStart = at;
      const kind = byte();
      if (kind === 0) leb(); // a function: its type
      else if (kind === 3) at += 2; // a global: value type, mutability
      else {
        if (kind === 1) at += 1; // a table: reference type, then its limits
        else if (kind !== 2) throw new Error(`import ${module}.${name} is of unknown kind ${kind}`);
        const flags = leb();
        leb();
        if (flags & 1) leb();
      }
      let newModule = module;
      let newName = name;
      if (module === MODULE) {
        if (renamed.has(name)) throw new Error(`the wasm imports ${name} twice`);
        newModule = SHORT_MODULE;
        newName = shortName(renamed.size);
        renamed.set(name, newName);
      }
      section.push(...encoded(newModule), ...encoded(newName), ...wasm.subarray(descStart, at));
    }
    if (at !== start + size) throw new Error("the wasm's import section did not parse");
    parts.push(Uint8Array.from([2, ...uleb(section.length), ...section]));
  }

  // texla.js: the keys of `const import0 = { ... }` in __wbg_get_imports, each a function.
  const open = js.indexOf("function __wbg_get_imports() {");
  const close = js.indexOf("\n}\n", open);
  if (open < 0 || close < 0) throw new Error("texla.js has no __wbg_get_imports");
  const keys = /^ {8}([A-Za-z_$][\w$]*): function\(/gm;
  let seen = 0;
  const body = js
    .slice(open, close)
    .replace(keys, (line, name) => {
      if (!renamed.has(name)) return line; // one that wasm-opt found unused
      seen++;
      return line.replace(name, renamed.get(name));
    })
    .replace(`"${MODULE}": import0`, `"${SHORT_MODULE}": import0`);
  if (seen !== renamed.size || !body.includes(`"${SHORT_MODULE}": import0`)) {
    throw new Error(`texla.js's __wbg_get_imports provides ${seen} of the wasm's ${renamed.size} imports`);
  }
  return { wasm: Buffer.concat(parts), js: js.slice(0, open) + body + js.slice(close), count: renamed.size };
}
