
// pos.xy is the centre (x + 0.5, y + 0.5) of the output texel this fragment writes.
@fragment
fn fs_main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    return kernel(vec2<i32>(pos.xy));
}
