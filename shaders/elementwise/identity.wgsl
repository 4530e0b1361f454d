// I(i, j) = 1 where i == j, else 0.
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let row = vec4<i32>(4 * texel.y) + vec4<i32>(0, 1, 2, 3);
    return mask_padding(texel.y, select(vec4<f32>(0.0), vec4<f32>(1.0), row == vec4<i32>(texel.x)));
}
