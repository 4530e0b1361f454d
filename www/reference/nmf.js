// The thesis's NMF in JavaScript float64: the same multiplicative updates as `gpu.nmf` (same
// rule, order, normalisation and eps), for the page's check and the benchmark. Matrices are
// row-major Float64Arrays: F m x n, U m x k, V n x k.

/** C (rows x cols) = A B, or A^T B when `transposeA` (A stored as inner x rows). */
function product(a, b, rows, inner, cols, transposeA = false) {
  const c = new Float64Array(rows * cols);
  for (let p = 0; p < inner; p++) {
    const bRow = p * cols;
    for (let i = 0; i < rows; i++) {
      const x = transposeA ? a[p * rows + i] : a[i * inner + p];
      if (x === 0) continue;
      const cRow = i * cols;
      for (let j = 0; j < cols; j++) c[cRow + j] += x * b[bRow + j];
    }
  }
  return c;
}

/** U V^T (m x n). */
function mulTr(u, v, m, n, k) {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += u[i * k + p] * v[j * k + p];
      c[i * n + j] = s;
    }
  }
  return c;
}

function columnSums(x, rows, cols) {
  const s = new Float64Array(cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) s[j] += x[i * cols + j];
  return s;
}

/** ||F - U V^T||_F^2. */
export function nmfError64(f, u, v, m, n, k) {
  const uv = mulTr(u, v, m, n, k);
  let e = 0;
  for (let i = 0; i < f.length; i++) e += (f[i] - uv[i]) ** 2;
  return e;
}

/** `iterations` NMF updates from `u` and `v` (copied); returns {u, v}. Options as `gpu.nmf`:
 * rule ("euclidean" | "divergence"), order ("alternating" | "simultaneous"), normalize, eps. */
export function nmf64(f, u, v, m, n, k, { iterations = 1, rule = "euclidean", order = "alternating", normalize = false, eps = 1e-9 } = {}) {
  const ratio = (x, num, den) => x.map((value, i) => (value * num[i]) / (den[i] + eps));
  const repeat = (row, rows) => {
    const out = new Float64Array(rows * row.length);
    for (let i = 0; i < rows; i++) out.set(row, i * row.length);
    return out;
  };
  const quotient = (u, v) => {
    const uv = mulTr(u, v, m, n, k);
    return f.map((x, i) => x / (uv[i] + eps));
  };
  const updateV = (u, v) => {
    if (rule === "divergence") {
      return ratio(v, product(quotient(u, v), u, n, m, k, true), repeat(columnSums(u, m, k), n));
    }
    return ratio(v, product(f, u, n, m, k, true), product(v, product(u, u, k, m, k, true), n, k, k));
  };
  const updateU = (u, v) => {
    if (rule === "divergence") {
      return ratio(u, product(quotient(u, v), v, m, n, k), repeat(columnSums(v, n, k), m));
    }
    return ratio(u, product(f, v, m, n, k), product(u, product(v, v, k, n, k, true), m, k, k));
  };
  u = Float64Array.from(u);
  v = Float64Array.from(v);
  for (let t = 0; t < iterations; t++) {
    if (order === "simultaneous") {
      [u, v] = [updateU(u, v), updateV(u, v)];
    } else {
      v = updateV(u, v);
      u = updateU(u, v);
    }
    if (normalize) {
      const s = columnSums(u, m, k);
      u = u.map((x, i) => x / (s[i % k] + eps));
    }
  }
  return { u, v };
}
