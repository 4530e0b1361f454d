// One pass of a float-float sum reduction (as reductions/reduce.*): output texel (x, y) is the
// float-float sum of the terms of input texels (4x..4x+3, 4y..4y+3) that exist, each lane on
// its own. The term ({term}) is the texel itself (a, b: hi and lo), or for the first pass of a
// dot product the float-float product of two texels (a, b and c, d). Outputs: hi and lo.
fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    var acc = ff_splat(0.0, 0.0);
    for (var j = 0; j < 4; j++) {
        let y = 4 * texel.y + j;
        for (var i = 0; i < 4; i++) {
            let x = 4 * texel.x + i;
            if (x < a_width() && y < a_height()) {
                acc = ff_add(acc, {term});
            }
        }
    }
    return array<vec4<f32>, 2>(acc.hi, acc.lo);
}
