// C = A * B^T without building B^T: A is m x k, B is n x k, C is m x n.
// C(i, x) = sum_p A(i, p) B(x, p): texel p of A's row block times element (x, p) of B, which
// lives in B's texel (p, x / 4), component x % 4.
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let x = texel.x;
    let y = texel.y;
    let by = x / 4;
    let bc = x % 4;
    var acc = vec4<f32>(0.0);
    for (var p = 0; p < a_cols(); p++) {
        acc += a_texel(p, y) * b_texel(p, by)[bc];
    }
    return acc;
}
