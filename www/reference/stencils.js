// Float64 references of the SIMD-optimization paper's stencil solvers, as src/stencil/poisson.rs and wave.rs define
// them: the Poisson grid's matrix (zero Dirichlet outside the two x-planes, zero Neumann in y and
// z: a neighbour outside is the cell itself), its relative residual, Gauss-Seidel (the paper's
// CPU solver) and one step of the wave (zero Dirichlet along a line, zero Neumann across lines).
// Cell (i, j, k) is at i + nx (j + ny k); the wave's cell (i, j) at i + side j.

/** |b - A x|_2 / |b|_2 on the grid [nx, ny, nz] (nz = 1: 2D, diagonal 4; else 6). */
export function poissonResidual([nx, ny, nz], x, b) {
  const d = nz === 1 ? 4 : 6;
  let r = 0;
  let nb = 0;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      const line = nx * (j + ny * k);
      const up = nx * (Math.max(j - 1, 0) + ny * k);
      const down = nx * (Math.min(j + 1, ny - 1) + ny * k);
      const back = nx * (j + ny * Math.max(k - 1, 0));
      const front = nx * (j + ny * Math.min(k + 1, nz - 1));
      for (let i = 0; i < nx; i++) {
        let v = d * x[line + i] - x[up + i] - x[down + i];
        if (nz > 1) v -= x[back + i] + x[front + i];
        if (i > 0) v -= x[line + i - 1];
        if (i + 1 < nx) v -= x[line + i + 1];
        const e = b[line + i] - v;
        r += e * e;
        nb += b[line + i] * b[line + i];
      }
    }
  }
  return nb > 0 ? Math.sqrt(r / nb) : Math.sqrt(r);
}

/** One lexicographic Gauss-Seidel sweep in place; a neighbour clamped onto the cell moves to
 * the diagonal. */
export function gaussSeidel([nx, ny, nz], x, b) {
  const d = nz === 1 ? 4 : 6;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      const line = nx * (j + ny * k);
      const others = [nx * (Math.max(j - 1, 0) + ny * k), nx * (Math.min(j + 1, ny - 1) + ny * k)];
      if (nz > 1) others.push(nx * (j + ny * Math.max(k - 1, 0)), nx * (j + ny * Math.min(k + 1, nz - 1)));
      const real = others.filter((o) => o !== line);
      const diag = d - (others.length - real.length);
      for (let i = 0; i < nx; i++) {
        let v = b[line + i];
        if (i > 0) v += x[line + i - 1];
        if (i + 1 < nx) v += x[line + i + 1];
        for (const o of real) v += x[o + i];
        x[line + i] = v / diag;
      }
    }
  }
}

/** Gauss-Seidel from zero until the residual is at most each of `tols` (at most maxIter):
 * { iterations: (number | null)[], ms: (number | null)[] }, ms the time of the sweeps alone
 * (the residual checks that find the counts are not timed). */
export function gaussSeidelTo(grid, b, tols, maxIter) {
  const x = new Float64Array(b.length);
  const iterations = tols.map(() => null);
  const ms = tols.map(() => null);
  let spent = 0;
  const smallest = Math.min(...tols);
  for (let it = 1; it <= maxIter; it++) {
    const t = performance.now();
    gaussSeidel(grid, x, b);
    spent += performance.now() - t;
    const r = poissonResidual(grid, x, b);
    tols.forEach((tol, n) => {
      if (iterations[n] === null && r <= tol) {
        iterations[n] = it;
        ms[n] = spent;
      }
    });
    if (r <= smallest) break;
  }
  return { iterations, ms };
}

/** One wave step in float64: returns [current, next] from (previous, current). */
export function waveStep(side, lines, lambda2, previous, current) {
  const c = 2 * (1 - 2 * lambda2);
  const next = new Float64Array(side * lines);
  for (let j = 0; j < lines; j++) {
    const up = side * Math.max(j - 1, 0);
    const down = side * Math.min(j + 1, lines - 1);
    const row = side * j;
    for (let i = 0; i < side; i++) {
      let v = c * current[row + i] + lambda2 * (current[up + i] + current[down + i]);
      if (i > 0) v += lambda2 * current[row + i - 1];
      if (i + 1 < side) v += lambda2 * current[row + i + 1];
      next[row + i] = v - previous[row + i];
    }
  }
  return [current, next];
}
