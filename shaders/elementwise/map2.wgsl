// Two element-wise expressions over the same inputs, written to two outputs in ONE pass.
fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    return array<vec4<f32>, 2>(mask_padding(texel.y, {expr}), mask_padding(texel.y, {expr2}));
}
