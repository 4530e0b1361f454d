// Blocked y = A x, first pass (Fujimoto's paper): output texel (b, y) is the partial sum over the
// columns of block b (param(0) columns, a multiple of 4) of A's texel times x's element, for
// matrix rows 4y..4y+3. Many fragments share the work even when A has few rows.
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let block = i32(param(0));
    let n = a_cols();
    let start = texel.x * block;
    let end = min(start + block, n);
    var acc = vec4<f32>(0.0);
    for (var j = start; j < end; j += 4) {
        let x = b_texel(0, j / 4);
        acc += a_texel(j, texel.y) * x.x;
        if (j + 1 < n) { acc += a_texel(j + 1, texel.y) * x.y; }
        if (j + 2 < n) { acc += a_texel(j + 2, texel.y) * x.z; }
        if (j + 3 < n) { acc += a_texel(j + 3, texel.y) * x.w; }
    }
    return acc;
}
