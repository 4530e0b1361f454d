// s X + t Y in float-float, element by element: inputs a, b (X's hi and lo) and c, d (Y's),
// the float-float factors s = param(0) + param(1) and t = param(2) + param(3); two render
// targets, the result's hi and lo. add is (1, 1), sub (1, -1), scale (s, 0), CG's updates
// (1, +-alpha). A factor of exactly 1 or 0 changes nothing (two_prod(1, x) = (x, 0)).
fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    let x = ff_texel(a_texel(texel.x, texel.y), b_texel(texel.x, texel.y));
    let y = ff_texel(c_texel(texel.x, texel.y), d_texel(texel.x, texel.y));
    let r = ff_add(ff_mul(ff_splat(param(0), param(1)), x), ff_mul(ff_splat(param(2), param(3)), y));
    return array<vec4<f32>, 2>(r.hi, r.lo);
}
