// Two element-wise expressions over the same inputs, written to two outputs in ONE pass.
fn kernel(texel: vec2<i32>) -> Out2 {
    return Out2(mask_padding(texel.y, {expr}), mask_padding(texel.y, {expr2}));
}
