// T = A^T: T(4y+c, x) = A(x, 4y+c), element x % 4 of A's texel (4y+c, x / 4).
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let x = texel.x;
    let y = texel.y;
    var t = vec4<f32>(0.0);
    for (var c = 0; c < 4; c++) {
        if (4 * y + c < a_cols()) {
            t[c] = a_texel(4 * y + c, x / 4)[x % 4];
        }
    }
    return t;
}
