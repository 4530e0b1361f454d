// Blocked y = A x in float-float, second pass: y's texel is the float-float sum of the
// partial sums across the row. Inputs a, b (the partial sums' hi and lo); outputs y's hi, lo.
void kernel(ivec2 texel, out vec4 r[2]) {
    Ff acc = ff_splat(0.0, 0.0);
    for (int j = 0; j < a_cols(); j++) {
        acc = ff_add(acc, ff_texel(a_texel(j, texel.y), b_texel(j, texel.y)));
    }
    r[0] = acc.hi;
    r[1] = acc.lo;
}
