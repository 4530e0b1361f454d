// The accuracy section's lesson "Where float32 stops and what float-float buys": the same work
// in float32 and in float-float (gpu.uploadFloat64: each element hi + lo, about 48 bits) on the
// GPU, each against JavaScript float64, and the two-sum and two-product the float-float
// kernels rest on, as the running package compiled them (gpu.lastShader()).

import { mulberry32, matmul64 } from "./reference/products.js";
import { relativeResidual64 } from "./reference/solvers.js";

const e2 = (v) => v.toExponential(2);

/** max |got - exact| / max |exact|. */
function relativeError(got, exact) {
  let err = 0;
  let most = 0;
  exact.forEach((e, i) => {
    err = Math.max(err, Math.abs(got[i] - e));
    most = Math.max(most, Math.abs(e));
  });
  return err / (most || 1);
}

/**
 * (a) C = A B, n x n, entries uniform in [-1, 1) drawn in float64: float32 (A and B rounded to
 * float32 on upload) and float-float, each against float64. Also returns the float-float
 * product's shader, the last kernel that ran.
 */
async function product(gpu, n) {
  const next = mulberry32(7);
  const a = Float64Array.from({ length: n * n }, () => 2 * next() - 1);
  const b = Float64Array.from({ length: n * n }, () => 2 * next() - 1);
  const exact = matmul64(a, b, n, n, n).c;
  const run = async (upload) => {
    const [ga, gb] = [upload(a), upload(b)];
    const c = gpu.matmul(ga, gb);
    const shader = gpu.lastShader() ?? "";
    const got = await c.readFloat64();
    [ga, gb, c].forEach((m) => m.free());
    return { error: relativeError(got, exact), shader };
  };
  const f32 = await run((d) => gpu.upload(Float32Array.from(d), n, n));
  const ff = await run((d) => gpu.uploadFloat64(d, n, n));
  return { f32: f32.error, ff: ff.error, shader: ff.shader };
}

/** (b) (1 + 2^-k) - 1 for each k: the sum and the difference each one GPU pass. */
async function cancellation(gpu, ks) {
  const ones = new Float64Array(ks.length).fill(1);
  const small = Float64Array.from(ks, (k) => 2 ** -k);
  const run = async (upload) => {
    const [one, tiny] = [upload(ones), upload(small)];
    const sum = gpu.add(one, tiny);
    const diff = gpu.sub(sum, one);
    const got = await diff.readFloat64();
    [one, tiny, sum, diff].forEach((m) => m.free());
    return got;
  };
  const f32 = await run((d) => gpu.upload(Float32Array.from(d), d.length, 1));
  const ff = await run((d) => gpu.uploadFloat64(d, d.length, 1));
  return ks.map((k, i) => ({ k, exact: small[i], f32: f32[i], ff: ff[i] }));
}

/** (c) CG on 1D Poisson of order n in float32 and in float-float; true residuals in float64. */
async function poisson(gpu, texla, n, progress) {
  const p = texla.Gpgpu.problem("poisson1d", n, 1);
  const a64 = Float64Array.from(p.a);
  const b64 = Float64Array.from(p.b);
  const run = async (name, upload, maxIter) => {
    const [A, B] = [upload(a64, n), upload(b64, 1)];
    const t0 = performance.now();
    const r = await gpu.cg(A, B, { tol: 1e-12, maxIter, onProgress: (it) => progress(`CG in ${name}, iteration ${it}`) });
    const ms = performance.now() - t0;
    const x = await r.x.readFloat64();
    [A, B, r.x].forEach((m) => m.free());
    return { iterations: r.iterations, claimed: r.residuals.at(-1), true: relativeResidual64(a64, b64, x, n), ms };
  };
  const f32 = await run("float32", (d, cols) => gpu.upload(Float32Array.from(d), n, cols), n);
  const ff = await run("float-float", (d, cols) => gpu.uploadFloat64(d, n, cols), 2 * n);
  return { f32, ff };
}

/**
 * The two error-free transformations out of a float-float kernel's source: from the comment
 * above two-sum to the end of two-product (WGSL or GLSL alike: ff_two_sum ... ff_two_prod).
 */
export function errorFreePart(shader) {
  const lines = shader.split("\n");
  let start = lines.findIndex((l) => /\bff_two_sum\s*\(/.test(l));
  const prod = lines.findIndex((l) => /\bff_two_prod\s*\(/.test(l) && !l.trim().startsWith("//"));
  if (start < 0 || prod < 0) return "";
  while (start > 0 && lines[start - 1].trim().startsWith("//")) start--;
  const end = lines.findIndex((l, i) => i > prod && l.startsWith("}"));
  return lines.slice(start, end + 1).join("\n");
}

/** Runs the lesson on `gpu` and shows it in `out`; `progress(text)` hears what runs. */
export async function floatFloatLesson(gpu, texla, out, progress = () => {}) {
  const n = 256;
  progress(`a ${n} × ${n} product in float32 and in float-float`);
  const prod = await product(gpu, n);
  progress("(1 + 2^-k) − 1");
  const cancel = await cancellation(gpu, [20, 24, 30, 40]);
  const cg = await poisson(gpu, texla, 512, progress);
  const source = errorFreePart(prod.shader);
  const language = gpu.backend === "webgpu" ? "WGSL" : "GLSL ES 3.00";
  const u32 = 2 ** -24;
  const uff = 2 ** -48;
  out.innerHTML = `<div id="ff-summary" data-f32-product-error="${prod.f32}" data-ff-product-error="${prod.ff}" data-f32-cg-residual="${cg.f32.true}" data-ff-cg-residual="${cg.ff.true}">
    <h4>(a) C = A B, ${n} × ${n}, entries uniform in [−1, 1) drawn in float64</h4>
    <table class="numbers">
      <tr><th></th><th>max |C − C64| / max |C64|</th><th>in units of 2^-24 (float32's unit roundoff)</th><th>in units of 2^-48</th></tr>
      <tr><th>GPU float32</th><td id="ff-product-f32">${e2(prod.f32)}</td><td>${(prod.f32 / u32).toFixed(1)}</td><td>${e2(prod.f32 / uff)}</td></tr>
      <tr><th>GPU float-float</th><td id="ff-product-ff">${e2(prod.ff)}</td><td>${e2(prod.ff / u32)}</td><td>${(prod.ff / uff).toFixed(1)}</td></tr>
    </table>
    <p>float32 keeps 24 bits of each input and of each of the ${n} partial sums: its error is a few
    units of 2^-24. float-float carries each product's and each sum's rounding error along in the
    low half: ${(prod.f32 / prod.ff).toExponential(1)} times smaller.</p>
    <h4>(b) (1 + 2^-k) − 1: the sum, then the difference, each one GPU pass</h4>
    <table class="numbers" id="ff-cancel">
      <tr><th>k</th><th>exact: 2^-k</th><th>GPU float32</th><th>GPU float-float</th></tr>
      ${cancel.map((r) => `<tr data-k="${r.k}" data-f32="${r.f32}" data-ff="${r.ff}"><td>${r.k}</td><td>${r.exact.toPrecision(6)}</td><td>${r.f32.toPrecision(6)}</td><td>${r.ff.toPrecision(6)}</td></tr>`).join("")}
    </table>
    <p>1 + 2^-k needs k + 1 significant bits: from k = 24 on (2^-24 is a tie, rounded to even)
    float32 rounds it to 1 and the difference is 0. float-float holds it as hi = 1, lo = 2^-k,
    and the difference gives 2^-k back.</p>
    <h4>(c) Conjugate gradients, 1D Poisson n = 512, tol 1e-12</h4>
    <table class="numbers" id="ff-cg">
      <tr><th></th><th>iterations</th><th>residual its recurrence claims</th><th>true |b − Ax| / |b| in float64</th><th>time</th></tr>
      <tr><th>GPU float32</th><td>${cg.f32.iterations}</td><td>${e2(cg.f32.claimed)}</td><td id="ff-cg-f32">${e2(cg.f32.true)}</td><td>${cg.f32.ms.toFixed(0)} ms</td></tr>
      <tr><th>GPU float-float</th><td>${cg.ff.iterations}</td><td>${e2(cg.ff.claimed)}</td><td id="ff-cg-ff">${e2(cg.ff.true)}</td><td>${cg.ff.ms.toFixed(0)} ms</td></tr>
    </table>
    <p>float32's x stalls at a true residual of ${e2(cg.f32.true)} while its recurrence goes on
    falling; float-float's x reaches ${e2(cg.ff.true)}.</p>
    <h4>(d) Two-sum and two-product, as this page's package compiled them (${language})</h4>
    <pre class="shader" id="ff-source"></pre>
    <p>Both are exact only if every operation is rounded once, as written: a compiler that
    reassociates would simplify (a − (s − bb)) + (b − bb) to 0, one that contracts a · 4097 − a
    into an fma breaks Veltkamp's usual split, and an fma that rounds twice (WGSL allows it, and
    SwiftShader's does) gives fma(a, b, −p) = 0: float-float would silently become float32. WGSL
    and GLSL ES have no <code>precise</code>, and NVIDIA's driver did simplify them on the H100
    (float-float came out equal to float32 there), so texla hides every two-sum intermediate and
    the product p from the compiler's algebra (<code>ff_opaque</code>: times a 1 read from a
    uniform), splits factors by masking their bits, which nothing can contract, takes WGSL's fma
    only where a run-time check (4097 × 4097 through a uniform, so it cannot be folded) finds it
    rounds once, Dekker's product otherwise, and <code>tests/float_float.rs</code> checks exact
    integer products up to 2^48 on both backends. On the H100 the dot is exact with this; the
    products still lose one float32 rounding there (see the README).</p>
  </div>`;
  out.querySelector("#ff-source").textContent = source;
}
