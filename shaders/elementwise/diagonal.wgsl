// The diagonal of a square A as a column vector: d(4y+c) = A(4y+c, 4y+c), element c of A's
// texel (4y+c, y).
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    var d = vec4<f32>(0.0);
    for (var c = 0; c < 4; c++) {
        let i = 4 * texel.y + c;
        if (i < a_cols()) {
            d[c] = a_texel(i, texel.y)[c];
        }
    }
    return d;
}
