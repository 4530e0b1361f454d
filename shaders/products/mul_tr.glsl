// C = A * B^T without building B^T: A is m x k, B is n x k, C is m x n.
// C(i, x) = sum_p A(i, p) B(x, p): texel p of A's row block times element (x, p) of B, which
// lives in B's texel (p, x / 4), component x % 4.
vec4 kernel(ivec2 texel) {
    int x = texel.x;
    int y = texel.y;
    int by = x / 4;
    int bc = x % 4;
    vec4 acc = vec4(0.0);
    for (int p = 0; p < a_cols(); p++) {
        acc += a_texel(p, y) * b_texel(p, by)[bc];
    }
    return acc;
}
