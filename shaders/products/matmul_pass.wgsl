// One accumulation pass of C = A * B (the thesis, section 3.2; the ShaderX2 article's "MOPs per pass"): the
// partial product so far, input c, plus inner indices p0 .. p0 + count - 1 of A B, one output
// texel (rows 4y..4y+3 of column x) per fragment. A product over k inner indices takes
// ceil(k / count) such passes, ping-ponging between two textures: count = 1 is the thesis's
// pass per inner index, count = 24 the ShaderX2 article's six MOPs of 4 per pass.
// param(0) = p0, param(1) = count.
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let x = texel.x;
    let y = texel.y;
    let p0 = i32(param(0));
    let end = min(p0 + i32(param(1)), a_cols());
    var acc = c_texel(x, y);
    for (var p = p0; p < end; p++) {
        acc += a_texel(p, y) * b_texel(x, p / 4)[p % 4];
    }
    return acc;
}
