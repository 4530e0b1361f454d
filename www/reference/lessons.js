// The float64 references of the tutorial's checks (www/lessons/checks*.js) that products.js,
// solvers.js and nmf.js here do not already hold: element-wise sums, reductions with their
// error scale, A x + b of a linear expression with its bound's sums, condition numbers.

/** a + b element by element, in float64. */
export function add64(a, b) {
  return Float64Array.from(a, (v, i) => v + b[i]);
}

/** Σ aᵢ and Σ |aᵢ| (with `b`: Σ aᵢbᵢ and Σ |aᵢbᵢ|), in float64. */
export function sum64(a, b = null) {
  let [sum, abs] = [0, 0];
  for (let i = 0; i < a.length; i++) {
    const t = b ? a[i] * b[i] : a[i];
    sum += t;
    abs += Math.abs(t);
  }
  return { sum, abs };
}

/** y = A x + b for each of the `cols` columns of x (m x cols, row-major), A m x m row-major;
 * also Σⱼ|aᵢⱼxⱼ| + |bᵢ| per element (the scale of its float32 error bound). */
export function linear64(a, b, x, m, cols) {
  const y = new Float64Array(m * cols);
  const abs = new Float64Array(m * cols);
  for (let i = 0; i < m; i++) {
    for (let c = 0; c < cols; c++) {
      let [s, t] = [b[i], Math.abs(b[i])];
      for (let j = 0; j < m; j++) {
        s += a[i * m + j] * x[j * cols + c];
        t += Math.abs(a[i * m + j] * x[j * cols + c]);
      }
      y[i * cols + c] = s;
      abs[i * cols + c] = t;
    }
  }
  return { y, abs };
}

/** The condition number of the n x n 1D Poisson matrix tridiag(-1, 2, -1): its eigenvalues
 * are 2 - 2 cos(kπ/(n+1)), k = 1..n. */
export function poissonCondition(n) {
  return (2 - 2 * Math.cos((n * Math.PI) / (n + 1))) / (2 - 2 * Math.cos(Math.PI / (n + 1)));
}
