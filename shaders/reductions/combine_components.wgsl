// Last pass of a reduction: the four components of the one remaining texel, combined.
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let v = a_texel(0, 0);
    return vec4<f32>({combine}, 0.0, 0.0, 0.0);
}
