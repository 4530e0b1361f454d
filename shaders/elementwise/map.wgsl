// Element-wise kernel: out = EXPR(a, b, ...) for every element, in ONE pass (functions.wgsl
// supplies the helpers EXPR calls).
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    return mask_padding(texel.y, {expr});
}
