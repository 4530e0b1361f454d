
// Two outputs: the same texel of two render targets, written in one pass.
@fragment
fn fs_main(@builtin(position) pos: vec4<f32>) -> Out2 {
    return kernel(vec2<i32>(pos.xy));
}
