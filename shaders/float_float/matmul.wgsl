// C = A B in float-float, one output texel (rows 4y..4y+3 of column x of C) per fragment:
// inputs a, b (A's hi and lo, m x k) and c, d (B's, k x n); two render targets, C's hi and lo.
//
// For each p, A's texel p (rows 4y..4y+3 of column p, a float-float 4-vector) times B's element
// (p, x) (a float-float scalar in all four lanes) joins the accumulator by ff_add: one exact
// two-product of the highs, two cross terms, a carried float-float sum; every lane is a row.
fn ff_step(acc: Ff, p: i32, y: i32, bh: f32, bl: f32) -> Ff {
    return ff_add(acc, ff_mul(ff_texel(a_texel(p, y), b_texel(p, y)), ff_splat(bh, bl)));
}

fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    let x = texel.x;
    let y = texel.y;
    let k = a_cols();
    var acc = ff_splat(0.0, 0.0);
    for (var p = 0; p < k; p += 4) {
        // B's rows p..p+3 of column x; past row k - 1 A has no column to fetch.
        let bh = c_texel(x, p / 4);
        let bl = d_texel(x, p / 4);
        acc = ff_step(acc, p, y, bh.x, bl.x);
        if (p + 1 < k) { acc = ff_step(acc, p + 1, y, bh.y, bl.y); }
        if (p + 2 < k) { acc = ff_step(acc, p + 2, y, bh.z, bl.z); }
        if (p + 3 < k) { acc = ff_step(acc, p + 3, y, bh.w, bl.w); }
    }
    return array<vec4<f32>, 2>(acc.hi, acc.lo);
}
