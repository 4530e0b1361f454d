// C = the sum of the slices of a split-k product (matmul_tiled.wgsl, compute path only): input
// `p` holds them stacked, each ceil(rows of C / 128) * 32 texel rows high. One thread a texel of
// C, workgroups of 64 columns x 4 texel rows.
@compute @workgroup_size(64, 4)
fn cs_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let x = i32(id.x);
    let y = i32(id.y);
    if (x >= out_cols() || y >= (out_rows() + 3) / 4) {
        return;
    }
    let h = (out_rows() + 127) / 128 * 32;
    var c = vec4<f32>(0.0);
    for (var t = y; t < p_height(); t += h) {
        c += p_texel(x, t);
    }
    textureStore(out_tex, vec2<i32>(x, y), c);
}
