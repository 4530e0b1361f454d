// C = A B in float-float, one output texel (rows 4y..4y+3 of column x of C) per fragment:
// inputs a, b (A's hi and lo, m x k) and c, d (B's, k x n); two render targets, C's hi and lo.
//
// For each p, A's texel p (rows 4y..4y+3 of column p, a float-float 4-vector) times B's element
// (p, x) (a float-float scalar in all four lanes) joins the accumulator by ff_add: one exact
// two-product of the highs, two cross terms, a carried float-float sum; every lane is a row.
Ff ff_step(Ff acc, int p, int y, float bh, float bl) {
    return ff_add(acc, ff_mul(ff_texel(a_texel(p, y), b_texel(p, y)), ff_splat(bh, bl)));
}

void kernel(ivec2 texel, out vec4 r[2]) {
    int x = texel.x;
    int y = texel.y;
    int k = a_cols();
    Ff acc = ff_splat(0.0, 0.0);
    for (int p = 0; p < k; p += 4) {
        // B's rows p..p+3 of column x; past row k - 1 A has no column to fetch.
        vec4 bh = c_texel(x, p / 4);
        vec4 bl = d_texel(x, p / 4);
        acc = ff_step(acc, p, y, bh.x, bl.x);
        if (p + 1 < k) { acc = ff_step(acc, p + 1, y, bh.y, bl.y); }
        if (p + 2 < k) { acc = ff_step(acc, p + 2, y, bh.z, bl.z); }
        if (p + 3 < k) { acc = ff_step(acc, p + 3, y, bh.w, bl.w); }
    }
    r[0] = acc.hi;
    r[1] = acc.lo;
}
