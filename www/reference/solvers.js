// The solvers in JavaScript float64, the same algorithms as the GPU's (src/solver), run beside
// them on the page (the solver section and the solver benchmarks).

/** y = A x for row-major n x n A, or `a(x)` where A is given by what it does (`laplacian64`). */
function matvec(a, x, n) {
  if (typeof a === "function") return a(x);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const row = i * n;
    for (let j = 0; j < n; j++) s += a[row + j] * x[j];
    y[i] = s;
  }
  return y;
}

const dot = (u, v) => u.reduce((s, x, i) => s + x * v[i], 0);

/**
 * The 2D Poisson matrix of an m x m grid as what it does: x (the grid's values, row-major) to
 * its 5-point Laplacian, zero outside the grid; what the GPU's `cgPoisson2d` applies.
 */
export function laplacian64(m) {
  return (x) => {
    const y = new Float64Array(m * m);
    for (let gy = 0; gy < m; gy++) {
      for (let gx = 0; gx < m; gx++) {
        const i = gy * m + gx;
        y[i] = 4 * x[i] - (gx > 0 ? x[i - 1] : 0) - (gx + 1 < m ? x[i + 1] : 0) - (gy > 0 ? x[i - m] : 0) - (gy + 1 < m ? x[i + m] : 0);
      }
    }
    return y;
  };
}

/** Conjugate gradients from x = 0; residuals are |r| / |b| per iteration (iteration 0 first).
 * With `round` (Math.fround) float32 is simulated: every stored value, product and partial sum
 * is rounded by it, while alpha and beta stay float64, as texla's CG keeps them on the CPU. */
export function cg64(a, b, n, tol, maxIter, round = null) {
  const dotR = round ? (u, v) => u.reduce((s, x, i) => round(s + round(x * v[i])), 0) : dot;
  const apply = round ? (p) => roundedMatvec(a, p, n, round) : (p) => matvec(a, p, n);
  const keep = round ?? ((v) => v);
  const x = new Float64Array(n);
  const r = Float64Array.from(b, keep);
  const p = Float64Array.from(r);
  const bNorm = Math.sqrt(dot(b, b)) || 1;
  let rr = dotR(r, r);
  const residuals = [Math.sqrt(rr) / bNorm];
  let k = 0;
  while (Math.sqrt(rr) / bNorm > tol && k < maxIter) {
    const s = apply(p);
    const alpha = rr / dotR(p, s);
    for (let i = 0; i < n; i++) {
      x[i] = keep(x[i] + keep(alpha * p[i]));
      r[i] = keep(r[i] - keep(alpha * s[i]));
    }
    const rrNew = dotR(r, r);
    const beta = rrNew / rr;
    for (let i = 0; i < n; i++) p[i] = keep(r[i] + keep(beta * p[i]));
    rr = rrNew;
    residuals.push(Math.sqrt(rr) / bNorm);
    k++;
  }
  return { x, residuals, iterations: k };
}

/** `matvec` with every product and partial sum rounded by `round`. */
function roundedMatvec(a, x, n, round) {
  if (typeof a === "function") return Float64Array.from(a(x), round);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s = round(s + round(a[i * n + j] * x[j]));
    y[i] = s;
  }
  return y;
}

/** Jacobi's method from x = 0, the residual measured before each update as on the GPU. */
export function jacobi64(a, b, n, tol, maxIter) {
  let x = new Float64Array(n);
  const bNorm = Math.sqrt(dot(b, b)) || 1;
  const residuals = [1];
  let k = 0;
  while (k < maxIter) {
    const w = matvec(a, x, n);
    const r = Float64Array.from(b, (v, i) => v - w[i]);
    const res = Math.sqrt(dot(r, r)) / bNorm;
    if (k > 0) residuals.push(res);
    if (res <= tol) break;
    x = Float64Array.from(x, (v, i) => v + r[i] / a[i * n + i]);
    k++;
  }
  return { x, residuals, iterations: k };
}

/** max |min(x, Ax + b)|. */
export function complementarity64(a, b, x, n) {
  const w = matvec(a, x, n);
  return x.reduce((m, v, i) => Math.max(m, Math.abs(Math.min(v, w[i] + b[i]))), 0);
}

/** |b - Ax| / |b|. */
export function relativeResidual64(a, b, x, n) {
  const w = matvec(a, x, n);
  const r = Float64Array.from(b, (v, i) => v - w[i]);
  return Math.sqrt(dot(r, r)) / (Math.sqrt(dot(b, b)) || 1);
}

/** Projected Jacobi, x <- max(0, x + omega D (Ax + b)); residuals every `every` iterations. */
export function lcp64(a, b, n, omega, iterations, every = 1) {
  let x = new Float64Array(n);
  const residuals = [complementarity64(a, b, x, n)];
  for (let k = 1; k <= iterations; k++) {
    const w = matvec(a, x, n);
    x = Float64Array.from(x, (v, i) => Math.max(0, v + (omega * (w[i] + b[i])) / a[i * n + i]));
    if (k % every === 0 || k === iterations) residuals.push(complementarity64(a, b, x, n));
  }
  return { x, residuals, iterations };
}
