
// Several outputs: one texel of each of {count} render targets, written in one pass. The kernel
// returns them as an array; the entry point hands element i to render target i.
struct Outputs {
{fields}
}

@fragment
fn fs_main(@builtin(position) pos: vec4<f32>) -> Outputs {
    let r = kernel(vec2<i32>(pos.xy));
    return Outputs({values});
}
