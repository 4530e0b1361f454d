// Blocked y = A x, second pass: y's texel y is the sum of the partial sums across the row.
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    var acc = vec4<f32>(0.0);
    for (var b = 0; b < a_cols(); b++) {
        acc += a_texel(b, texel.y);
    }
    return acc;
}
