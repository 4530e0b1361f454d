// Blocked y = A x in float-float, first pass (as products/matvec_partial.*): output texel
// (block, y) is the float-float sum over the columns of that block (param(0) columns, a
// multiple of 4) of A's texel times x's element. Inputs a, b (A's hi and lo), c, d (x's);
// two render targets, the partial sums' hi and lo.
fn ff_step(acc: Ff, j: i32, y: i32, xh: f32, xl: f32) -> Ff {
    return ff_add(acc, ff_mul(ff_texel(a_texel(j, y), b_texel(j, y)), ff_splat(xh, xl)));
}

fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    let block = i32(param(0));
    let n = a_cols();
    let y = texel.y;
    let start = texel.x * block;
    let end = min(start + block, n);
    var acc = ff_splat(0.0, 0.0);
    for (var j = start; j < end; j += 4) {
        let xh = c_texel(0, j / 4);
        let xl = d_texel(0, j / 4);
        acc = ff_step(acc, j, y, xh.x, xl.x);
        if (j + 1 < n) { acc = ff_step(acc, j + 1, y, xh.y, xl.y); }
        if (j + 2 < n) { acc = ff_step(acc, j + 2, y, xh.z, xl.z); }
        if (j + 3 < n) { acc = ff_step(acc, j + 3, y, xh.w, xl.w); }
    }
    return array<vec4<f32>, 2>(acc.hi, acc.lo);
}
