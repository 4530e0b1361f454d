// The init script of bench/browser/failure-modes.mjs's pages.

// Injected into every page before its scripts: the recorders of contexts and devices, and the
// helpers the modes below use (they run in the page, so they can only reach what is in it).
export const HELPERS = `
window.fmContexts = [];
window.fmDevices = [];
{
  const getContext = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (type, ...rest) {
    const c = getContext.call(this, type, ...rest);
    if (type === "webgl2" && c && !window.fmContexts.includes(c)) window.fmContexts.push(c);
    return c;
  };
  if (typeof GPUAdapter !== "undefined") {
    const requestDevice = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (...args) {
      const d = await requestDevice.apply(this, args);
      window.fmDevices.push(d);
      return d;
    };
  }
}
window.fm = (() => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const message = (e) => {
    if (e instanceof WebAssembly.RuntimeError) return "WASM TRAP (" + e.constructor.name + "): " + e.message;
    if (e instanceof Error) return e.message ? e.message : e.name + " with no message";
    return "a non-Error was thrown: " + String(e);
  };
  /** Calls f and says how it ended: threw, rejected, resolved, returned or hung (after ms). */
  async function outcome(f, ms = 60000) {
    const t0 = performance.now();
    let r;
    try {
      r = f();
    } catch (e) {
      return { kind: "threw", text: "throws: " + message(e), error: e, ms: performance.now() - t0 };
    }
    if (r && typeof r.then === "function") {
      const timer = new Promise((done) => setTimeout(() => done({ hang: true }), ms));
      const v = await Promise.race([r.then((value) => ({ value }), (error) => ({ error })), timer]);
      const took = performance.now() - t0;
      if (v.hang) return { kind: "hang", text: "HANG: no answer in " + ms / 1000 + " s", ms: took };
      if ("error" in v) return { kind: "rejected", text: "rejects: " + message(v.error), error: v.error, ms: took };
      return { kind: "resolved", value: v.value, text: "resolves", ms: took };
    }
    return { kind: "returned", value: r, text: "returns", ms: performance.now() - t0 };
  }
  /** What the user sees of an outcome that should have been an error. */
  const says = (o, ok = "accepted, no error") => (o.kind === "threw" || o.kind === "rejected" || o.kind === "hang" ? o.text : ok);
  /** A small product and A·x on gpu, against float64 (all exact in float32). */
  async function usable(gpu) {
    const o = await outcome(async () => {
      const a = gpu.upload(new Float32Array([1, 2, 3, 4, 5, 6]), 2, 3);
      const b = gpu.upload(new Float32Array([7, 8, 9, 10, 11, 12]), 3, 2);
      const x = gpu.upload(new Float32Array([1, -1, 2]), 3, 1);
      const c = Array.from(await gpu.matmul(a, b).read());
      const y = Array.from(await gpu.mulVec(a, x).read());
      for (const m of [a, b, x]) m.free();
      return String(c) === "58,64,139,154" && String(y) === "5,11"
        ? true
        : "wrong numbers: A·B = [" + c + "], A·x = [" + y + "] where float64 gives [58,64,139,154], [5,11]";
    }, 30000);
    if (o.kind === "resolved" && o.value === true) return "yes (A·B, A·x = float64)";
    if (o.kind === "resolved") return "NO: " + o.value;
    return "NO: " + o.text;
  }
  /** Seeded numbers in [-1, 1). */
  function random(n, seed) {
    let s = seed >>> 0;
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      out[i] = s / 2147483648 - 1;
    }
    return out;
  }
  /** Float64 A·B of row-major arrays; the product and, per element, the sum of |terms|. */
  function product(a, b, m, k, n) {
    const c = new Float64Array(m * n), abs = new Float64Array(m * n);
    for (let i = 0; i < m; i++)
      for (let p = 0; p < k; p++) {
        const x = a[i * k + p];
        for (let j = 0; j < n; j++) {
          c[i * n + j] += x * b[p * n + j];
          abs[i * n + j] += Math.abs(x * b[p * n + j]);
        }
      }
    return { c, abs };
  }
  /** The largest |got - exact| / sum |terms| (or / max(1, |exact|) without terms). */
  function error(got, exact, abs) {
    let worst = 0;
    for (let i = 0; i < exact.length; i++) {
      const e = Math.abs(got[i] - exact[i]) / (abs ? Math.max(abs[i], 1e-300) : Math.max(1, Math.abs(exact[i])));
      worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
    }
    return worst;
  }
  const fmt = (x) => (x === 0 ? "0" : Math.abs(x) < 1e-3 || Math.abs(x) >= 1e5 ? x.toExponential(1) : String(+x.toPrecision(3)));
  /** "matches float64 (error e)" or "WRONG ..." where the error is above bound. */
  const verdict = (what, e, bound = 1e-5) => (e <= bound ? what + " matches float64 (error " + fmt(e) + ")" : "WRONG: " + what + " is off float64 by " + fmt(e) + " (bound " + fmt(bound) + ")");
  async function texla() {
    const t = await import("/pkg/texla.js");
    await t.default();
    return t;
  }
  /** Forces a loss from outside texla on the context or device \`gpu\` opened (the last one
   * opened since \`mark\`). */
  function loser(backend, mark) {
    if (backend === "webgl2") {
      const ctx = window.fmContexts[window.fmContexts.length - 1];
      if (window.fmContexts.length <= mark.contexts) throw new Error("no WebGL2 context was recorded");
      const ext = ctx.getExtension("WEBGL_lose_context");
      return { what: "WEBGL_lose_context.loseContext()", lose: () => ext.loseContext(), ctx, ext };
    }
    const device = window.fmDevices[window.fmDevices.length - 1];
    if (window.fmDevices.length <= mark.devices) throw new Error("no WebGPU device was recorded");
    return { what: "device.destroy()", lose: () => device.destroy(), device };
  }
  const mark = () => ({ contexts: window.fmContexts.length, devices: window.fmDevices.length });
  return { sleep, message, outcome, says, usable, random, product, error, fmt, verdict, texla, loser, mark };
})();
`;
