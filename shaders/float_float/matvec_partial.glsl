// Blocked y = A x in float-float, first pass (as products/matvec_partial.*): output texel
// (block, y) is the float-float sum over the columns of that block (param(0) columns, a
// multiple of 4) of A's texel times x's element. Inputs a, b (A's hi and lo), c, d (x's);
// two render targets, the partial sums' hi and lo.
Ff ff_step(Ff acc, int j, int y, float xh, float xl) {
    return ff_add(acc, ff_mul(ff_texel(a_texel(j, y), b_texel(j, y)), ff_splat(xh, xl)));
}

void kernel(ivec2 texel, out vec4 r[2]) {
    int block = int(param(0));
    int n = a_cols();
    int y = texel.y;
    int start = texel.x * block;
    int end = min(start + block, n);
    Ff acc = ff_splat(0.0, 0.0);
    for (int j = start; j < end; j += 4) {
        vec4 xh = c_texel(0, j / 4);
        vec4 xl = d_texel(0, j / 4);
        acc = ff_step(acc, j, y, xh.x, xl.x);
        if (j + 1 < n) { acc = ff_step(acc, j + 1, y, xh.y, xl.y); }
        if (j + 2 < n) { acc = ff_step(acc, j + 2, y, xh.z, xl.z); }
        if (j + 3 < n) { acc = ff_step(acc, j + 3, y, xh.w, xl.w); }
    }
    r[0] = acc.hi;
    r[1] = acc.lo;
}
