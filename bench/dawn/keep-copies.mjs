// What `keepCopies` costs per call, on Dawn in Node: texla's upload (with finish), read() and
// readInto of an n x n matrix, with keepCopies false, true (the default: the page's arrays are
// the copies) and "copy" (private copies), in turns (round r starts from mode r), medians of
// --reps runs after a warm-up, and each mode's cost beyond false. See README.md.
//
//   node bench/dawn/keep-copies.mjs [--sizes 256,512,1024] [--reps 15] [--pkg DIR]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { arg, findPkg, openTexla } from "./dawn.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const sizes = arg("sizes", "256,512,1024").split(",").map(Number);
const reps = Number(arg("reps", "15"));
const pkgDir = findPkg(here);
const { texla } = await openTexla({ pkgDir });
const modes = [false, true, "copy"];
const gpus = [];
for (const keepCopies of modes) gpus.push(await texla.Gpgpu.create("webgpu", { keepCopies }));
const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const time = async (f) => {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
};
const rows = [];
for (const n of sizes) {
  const data = new Float32Array(n * n).map((_, i) => ((i * 7919) % 1000) / 1000);
  const out = new Float32Array(n * n);
  const ms = modes.map(() => ({ upload: [], read: [], readInto: [] }));
  // One matrix per mode, kept: each read() keeps what it read until the matrix changes, so
  // `fresh` is changed in place before each read (its copy goes, as after a product).
  const fresh = gpus.map((g) => g.upload(data, n, n));
  const once = async (m) => {
    const g = gpus[m];
    ms[m].upload.push(await time(async () => {
      const u = g.upload(data, n, n);
      await g.finish();
      u.free();
    }));
    fresh[m].scaleMut(1);
    await g.finish();
    ms[m].read.push(await time(() => fresh[m].read()));
    fresh[m].scaleMut(1);
    await g.finish();
    ms[m].readInto.push(await time(() => fresh[m].readInto(out)));
  };
  for (let m = 0; m < modes.length; m++) await once(m); // warm-up
  for (const m of ms) Object.values(m).forEach((v) => (v.length = 0));
  for (let r = 0; r < reps; r++) for (let k = 0; k < modes.length; k++) await once((r + k) % modes.length);
  fresh.forEach((m) => m.free());
  for (let m = 0; m < modes.length; m++) {
    const row = { n, mib: (4 * n * n) / 2 ** 20, keepCopies: String(modes[m]) };
    for (const k of ["upload", "read", "readInto"]) row[k] = median(ms[m][k]);
    rows.push(row);
  }
}
const base = (n, k) => rows.find((r) => r.n === n && r.keepCopies === "false")[k];
console.log("| n | MiB | keepCopies | upload ms | read() ms | readInto ms | upload +ms | read() +ms | readInto +ms |");
console.log("|---:|---:|---|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  const d = (k) => (r[k] - base(r.n, k)).toFixed(2);
  console.log(`| ${r.n} | ${r.mib} | ${r.keepCopies} | ${r.upload.toFixed(2)} | ${r.read.toFixed(2)} | ${r.readInto.toFixed(2)} | ${d("upload")} | ${d("read")} | ${d("readInto")} |`);
}
const outFile = arg("out", process.env.OUT ? path.join(process.env.OUT, "keep-copies.json") : null);
if (outFile) fs.writeFileSync(outFile, JSON.stringify({ date: new Date().toISOString(), reps, rows }, null, 1));
