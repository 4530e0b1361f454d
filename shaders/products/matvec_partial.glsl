// Blocked y = A x, first pass (Fujimoto's paper): output texel (b, y) is the partial sum over the
// columns of block b (param(0) columns, a multiple of 4) of A's texel times x's element, for
// matrix rows 4y..4y+3. Many fragments share the work even when A has few rows.
vec4 kernel(ivec2 texel) {
    int block = int(param(0));
    int n = a_cols();
    int start = texel.x * block;
    int end = min(start + block, n);
    vec4 acc = vec4(0.0);
    for (int j = start; j < end; j += 4) {
        vec4 x = b_texel(0, j / 4);
        acc += a_texel(j, texel.y) * x.x;
        if (j + 1 < n) { acc += a_texel(j + 1, texel.y) * x.y; }
        if (j + 2 < n) { acc += a_texel(j + 2, texel.y) * x.z; }
        if (j + 3 < n) { acc += a_texel(j + 3, texel.y) * x.w; }
    }
    return acc;
}
