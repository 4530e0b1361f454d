// Blocked y = A x, second pass: y's texel y is the sum of the partial sums across the row.
vec4 kernel(ivec2 texel) {
    vec4 acc = vec4(0.0);
    for (int b = 0; b < a_cols(); b++) {
        acc += a_texel(b, texel.y);
    }
    return acc;
}
