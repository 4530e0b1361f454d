// Float-float through Dawn (issue 18): texla's float-float product, A·x and dot against float64
// and against float32, on whatever adapter Dawn finds (the H100 in run-h100.sh --float-float).
// Errors are |got - exact| / sum |terms| over sampled elements (as native_bench --float-float);
// times are ms per call from the call to the end of the GPU's work, operands resident, median
// of 5. Usage: node float-float.mjs [--pkg DIR] [--sizes 256,512,1024] [--mv-sizes 1024,4096]
import path from "node:path";
import { fileURLToPath } from "node:url";
import { arg, findPkg, openTexla } from "./dawn.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { gpu, adapterInfo } = await openTexla({ pkgDir: findPkg(here) });
const list = (name, fallback) => String(arg(name, fallback)).split(",").map(Number);

let seed = 1;
const random = (len) => Float64Array.from({ length: len }, () => 2 * ((seed = (seed * 48271) % 2147483647) / 2147483647) - 1);

/** Median ms of `reps` calls of `op`, 5 runs, after one warm-up. */
async function time(reps, op) {
  op().free();
  await gpu.finish();
  const ms = [];
  for (let run = 0; run < 5; run++) {
    const t0 = performance.now();
    const out = Array.from({ length: reps }, op);
    await gpu.finish();
    ms.push((performance.now() - t0) / reps);
    out.forEach((m) => m.free());
  }
  return ms.sort((a, b) => a - b)[2];
}

/** Worst sampled error of `got` (rows x cols, row-major) against A B in float64. */
function worst(got, a, b, n, cols) {
  let w = 0;
  for (let s = 0; s < 256; s++) {
    const i = (s * 7919) % n;
    const j = (s * 104729) % cols;
    let exact = 0;
    let abs = 0;
    for (let p = 0; p < n; p++) {
      const t = a[i * n + p] * b[p * cols + j];
      exact += t;
      abs += Math.abs(t);
    }
    w = Math.max(w, Math.abs(got[i * cols + j] - exact) / abs);
  }
  return w;
}

const rows = [];
async function line(op, n, cols, reps) {
  const [a, b] = [random(n * n), random(n * cols)];
  const [fa, fb] = [gpu.uploadFloat64(a, n, n), gpu.uploadFloat64(b, n, cols)];
  const [sa, sb] = [gpu.upload(Float32Array.from(a), n, n), gpu.upload(Float32Array.from(b), n, cols)];
  const mul = cols === 1 ? (x, y) => gpu.mulVec(x, y) : (x, y) => gpu.matmul(x, y);
  const f32Ms = await time(reps, () => mul(sa, sb));
  const ffMs = await time(reps, () => mul(fa, fb));
  const c32 = mul(sa, sb);
  const cff = mul(fa, fb);
  const row = { op, n, f32Ms, ffMs, f32Err: worst(await c32.read(), a, b, n, cols), ffErr: worst(await cff.readFloat64(), a, b, n, cols) };
  [fa, fb, sa, sb, c32, cff].forEach((m) => m.free());
  rows.push(row);
  console.log(JSON.stringify(row));
}

for (const n of list("sizes", "256,512,1024")) await line("A B", n, n, 5);
for (const n of list("mv-sizes", "1024,4096")) await line("A x", n, 1, 50);
{
  const n = 1 << 20;
  const [x, y] = [random(n), random(n)];
  const [fx, fy] = [gpu.uploadFloat64(x, 1024, 1024), gpu.uploadFloat64(y, 1024, 1024)];
  let exact = 0;
  let abs = 0;
  for (let i = 0; i < n; i++) {
    exact += x[i] * y[i];
    abs += Math.abs(x[i] * y[i]);
  }
  const got = await gpu.dot(fx, fy);
  const row = { op: "dot", n, ffErr: Math.abs(got - exact) / abs };
  rows.push(row);
  console.log(JSON.stringify(row));
}
console.log(`\nFloat-float through Dawn on ${adapterInfo.description ?? adapterInfo.device}: errors |got - exact| / sum |terms|, ms per call (resident, median of 5)\n`);
console.log("| op | n | float32 ms | float-float ms | ff / f32 | float32 error | float-float error |\n|---|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  const f = (v, d = 4) => (v === undefined ? "-" : v.toFixed(d));
  const e = (v) => (v === undefined ? "-" : v.toExponential(1));
  console.log(`| ${r.op} | ${r.n} | ${f(r.f32Ms)} | ${f(r.ffMs)} | ${r.f32Ms ? (r.ffMs / r.f32Ms).toFixed(1) : "-"} | ${e(r.f32Err)} | ${e(r.ffErr)} |`);
}
