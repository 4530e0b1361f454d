// Blocked y = A x in float-float, second pass: y's texel is the float-float sum of the
// partial sums across the row. Inputs a, b (the partial sums' hi and lo); outputs y's hi, lo.
fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    var acc = ff_splat(0.0, 0.0);
    for (var j = 0; j < a_cols(); j++) {
        acc = ff_add(acc, ff_texel(a_texel(j, texel.y), b_texel(j, texel.y)));
    }
    return array<vec4<f32>, 2>(acc.hi, acc.lo);
}
