// T = A^T: T(4y+c, x) = A(x, 4y+c), element x % 4 of A's texel (4y+c, x / 4).
vec4 kernel(ivec2 texel) {
    int x = texel.x;
    int y = texel.y;
    vec4 t = vec4(0.0);
    for (int c = 0; c < 4; c++) {
        if (4 * y + c < a_cols()) {
            t[c] = a_texel(4 * y + c, x / 4)[x % 4];
        }
    }
    return t;
}
