// The wall's contact LCP in JavaScript float64: projected Jacobi and its accelerated form with
// the friction projection (the GPU's algorithms), the complementarity residual, Lemke's method,
// and the wall's "Verify".

/** Projected Jacobi in float64 on the dense LCP `lcp` (the GPU's algorithm, same start,
 * omega and iterations): x <- proj(x + omega D (A x + b)). Rows skip their zeros, as the GPU's
 * block layout does, unless `dense` (every element, as the GPU's dense mode does). */
export function contactJacobi64(lcp, iterations = lcp.iterations, dense = false) {
  const { size: n, b, mu, omega } = lcp;
  const rows = sparseRows(lcp, dense);
  let x = Float64Array.from(lcp.x0);
  let y = new Float64Array(n);
  for (let k = 0; k < iterations; k++) {
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      let w = b[i];
      for (let t = 0; t < r.cols.length; t++) w += r.vals[t] * x[r.cols[t]];
      y[i] = x[i] + omega * r.inv * w;
    }
    for (let c = 0; c < n; c += 3) project(y, c, mu);
    [x, y] = [y, x];
  }
  return x;
}

/** Graph-coloured projected Gauss-Seidel in float64 (shaders/solvers/contact_gauss_seidel.wgsl
 * gives the formulas): same start and sweeps; colour after colour (`lcp.colour`), each contact
 * solves its own 3 x 3 block row by row (normal, then each friction impulse within mu times the
 * new normal one) against the newest impulses of all others. */
export function contactGaussSeidel64(lcp, iterations = lcp.iterations) {
  const { size: n, a, b, mu } = lcp;
  const rows = sparseRows(lcp);
  const order = [...Array(n / 3).keys()].sort((i, j) => lcp.colour[i] - lcp.colour[j] || i - j);
  const x = Float64Array.from(lcp.x0);
  for (let k = 0; k < iterations; k++) {
    for (const c of order) {
      const w = [0, 1, 2].map((r) => {
        const row = rows[3 * c + r];
        let v = b[3 * c + r];
        for (let s = 0; s < row.cols.length; s++) v += row.vals[s] * x[row.cols[s]];
        return v;
      });
      for (let r = 0; r < 3; r++) {
        const i = 3 * c + r, limit = mu * x[3 * c];
        let next = x[i] - w[r] / a[i * n + i];
        next = r === 0 ? Math.max(next, 0) : Math.min(Math.max(next, -limit), limit);
        const change = next - x[i];
        x[i] = next;
        for (let q = 0; q < 3; q++) w[q] += a[(3 * c + q) * n + i] * change;
      }
    }
  }
  return x;
}

/** Accelerated projected Jacobi in float64 (the GPU's default; shaders/solvers/
 * contact_nesterov.wgsl gives the formulas): same start, step `lcp.step` and iterations;
 * Nesterov's momentum with FISTA's schedule, restarted per contact when its step turns back. */
export function contactNesterov64(lcp, iterations = lcp.iterations) {
  const { size: n, b, mu, step } = lcp;
  const rows = sparseRows(lcp);
  const advanced = (t) => 0.5 * (1 + Math.sqrt(1 + 4 * t * t));
  let x = Float64Array.from(lcp.x0);
  let prev = Float64Array.from(lcp.x0);
  const t = new Float64Array(n / 3); // each contact's counter: 0 makes the first y the start
  const y = new Float64Array(n), next = new Float64Array(n), ahead = new Float64Array(n / 3);
  for (let k = 0; k < iterations; k++) {
    for (let c = 0; c < n / 3; c++) {
      ahead[c] = advanced(t[c]);
      const beta = (t[c] - 1) / ahead[c];
      for (let r = 3 * c; r < 3 * c + 3; r++) y[r] = x[r] + beta * (x[r] - prev[r]);
    }
    for (let i = 0; i < n; i++) {
      const row = rows[i];
      let w = b[i];
      for (let s = 0; s < row.cols.length; s++) w += row.vals[s] * y[row.cols[s]];
      next[i] = y[i] + step * row.inv * w;
    }
    for (let c = 0; c < n; c += 3) project(next, c, mu);
    for (let c = 0; c < n / 3; c++) {
      let turned = 0;
      for (let r = 3 * c; r < 3 * c + 3; r++) turned += (y[r] - next[r]) * (next[r] - x[r]);
      t[c] = turned > 0 ? 1 : ahead[c];
    }
    prev.set(x);
    x.set(next);
  }
  return x;
}

/** The rows of the dense `lcp.a`: their non-zeros (every element if `dense`) and 1 / A_ii. */
function sparseRows({ size: n, a }, dense = false) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    const cols = [], vals = [];
    for (let j = 0; j < n; j++) if (dense || a[i * n + j] !== 0) { cols.push(j); vals.push(a[i * n + j]); }
    rows.push({ cols, vals, inv: 1 / a[i * n + i] });
  }
  return rows;
}

function project(v, c, mu) {
  const normal = Math.max(v[c], 0);
  const limit = mu * normal;
  v[c] = normal;
  v[c + 1] = Math.min(Math.max(v[c + 1], -limit), limit);
  v[c + 2] = Math.min(Math.max(v[c + 2], -limit), limit);
}

/** max |x - proj(x - (Ax + b))|: zero exactly at a solution. */
export function contactResidual64(lcp, x) {
  const { size: n, a, b, mu } = lcp;
  const v = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let w = b[i];
    for (let j = 0; j < n; j++) w += a[i * n + j] * x[j];
    v[i] = x[i] - w;
  }
  for (let c = 0; c < n; c += 3) project(v, c, mu);
  let worst = 0;
  for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(x[i] - v[i]));
  return worst;
}

/** Lemke's complementary pivoting: z >= 0, w = M z + q >= 0, z.w = 0, for a small dense M
 * (row-major m x m). Returns z, or null if it ends on a ray. */
export function lemke(M, q, m) {
  if (q.every((v) => v >= 0)) return new Float64Array(m);
  const cols = 2 * m + 2;
  const T = Array.from({ length: m }, (_, i) => {
    const row = new Float64Array(cols);
    row[i] = 1;
    for (let j = 0; j < m; j++) row[m + j] = -M[i * m + j];
    row[2 * m] = -1;
    row[2 * m + 1] = q[i];
    return row;
  });
  const basis = Array.from({ length: m }, (_, i) => i);
  const pivot = (r, c) => {
    const p = T[r][c];
    for (let j = 0; j < cols; j++) T[r][j] /= p;
    for (let i = 0; i < m; i++) {
      if (i === r || T[i][c] === 0) continue;
      const f = T[i][c];
      for (let j = 0; j < cols; j++) T[i][j] -= f * T[r][j];
    }
  };
  let r = 0;
  for (let i = 1; i < m; i++) if (q[i] < q[r]) r = i;
  let entering = 2 * m;
  for (let step = 0; step < 50 * m; step++) {
    if (step > 0) {
      r = -1;
      let best = Infinity;
      for (let i = 0; i < m; i++) {
        if (T[i][entering] > 1e-12) {
          const ratio = T[i][2 * m + 1] / T[i][entering];
          if (ratio < best - 1e-15 || (Math.abs(ratio - best) <= 1e-15 && basis[i] === 2 * m)) { best = ratio; r = i; }
        }
      }
      if (r < 0) return null;
    }
    pivot(r, entering);
    const leaving = basis[r];
    basis[r] = entering;
    if (leaving === 2 * m) break;
    entering = leaving < m ? leaving + m : leaving - m;
  }
  const z = new Float64Array(m);
  basis.forEach((v, i) => { if (v >= m && v < 2 * m) z[v - m] = T[i][2 * m + 1]; });
  return z;
}

/** The frame's LCP solved again in float64: the same projected Jacobi, and Lemke on the
 * normal impulses of the smallest islands (friction fixed at the GPU's values). */
export function verify(lcp) {
  const t0 = performance.now();
  const solve = { nesterov: contactNesterov64, "gauss-seidel": contactGaussSeidel64 }[lcp.solver] ?? contactJacobi64;
  const x64 = solve(lcp);
  const jsMs = performance.now() - t0;
  let diff = 0, scale = 0;
  for (let i = 0; i < lcp.size; i++) {
    diff = Math.max(diff, Math.abs(lcp.x[i] - x64[i]));
    scale = Math.max(scale, Math.abs(x64[i]));
  }
  const islands = new Map();
  lcp.island.forEach((k, c) => { if (!islands.has(k)) islands.set(k, []); islands.get(k).push(c); });
  const small = [...islands.values()].filter((cs) => cs.length <= 40).sort((p, q) => p.length - q.length).slice(0, 5);
  const n = lcp.size;
  const lemkeRows = small.map((contacts) => {
    const m = contacts.length;
    const M = new Float64Array(m * m), q = new Float64Array(m);
    contacts.forEach((ci, r) => {
      const row = 3 * ci;
      contacts.forEach((cj, c) => { M[r * m + c] = lcp.a[row * n + 3 * cj]; });
      let v = lcp.b[row];
      for (const cj of contacts) v += lcp.a[row * n + 3 * cj + 1] * lcp.x[3 * cj + 1] + lcp.a[row * n + 3 * cj + 2] * lcp.x[3 * cj + 2];
      q[r] = v;
    });
    const z = lemke(M, q, m);
    let d = 0;
    if (z) contacts.forEach((ci, r) => { d = Math.max(d, Math.abs(z[r] - lcp.x[3 * ci])); });
    return { contacts: m, solved: !!z, maxNormalDiff: d, maxNormal: z ? Math.max(...z) : NaN };
  });
  return {
    size: n, iterations: lcp.iterations, solver: lcp.solver, jsMs, maxImpulseDiff: diff, maxImpulse: scale,
    residualGpu: contactResidual64(lcp, lcp.x), residual64: contactResidual64(lcp, x64), lemke: lemkeRows,
  };
}
