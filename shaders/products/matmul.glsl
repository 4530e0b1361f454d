// C = A * B, one output texel (rows 4y..4y+3 of column x of C) per fragment.
//
// The atomic step is the ShaderX2 article's MOP: a 4x4 block of A (four texels: columns p..p+3, rows
// 4y..4y+3) times a 4-vector of B (one texel: rows p..p+3 of column x).
vec4 kernel(ivec2 texel) {
    int x = texel.x;
    int y = texel.y;
    int k = a_cols();
    vec4 acc = vec4(0.0);
    int p = 0;
    for (; p + 4 <= k; p += 4) {
        vec4 b = b_texel(x, p / 4);
        acc += a_texel(p, y) * b.x + a_texel(p + 1, y) * b.y
             + a_texel(p + 2, y) * b.z + a_texel(p + 3, y) * b.w;
    }
    // The last k % 4 columns of A: B's padding rows read as zero, but A has no texels past
    // column k - 1, so those must not be fetched.
    if (p < k) {
        vec4 b = b_texel(x, p / 4);
        acc += a_texel(p, y) * b.x;
        if (p + 1 < k) { acc += a_texel(p + 1, y) * b.y; }
        if (p + 2 < k) { acc += a_texel(p + 2, y) * b.z; }
    }
    return acc;
}
