// The diagonal of a square A as a column vector: d(4y+c) = A(4y+c, 4y+c), element c of A's
// texel (4y+c, y).
vec4 kernel(ivec2 texel) {
    vec4 d = vec4(0.0);
    for (int c = 0; c < 4; c++) {
        int i = 4 * texel.y + c;
        if (i < a_cols()) {
            d[c] = a_texel(i, texel.y)[c];
        }
    }
    return d;
}
