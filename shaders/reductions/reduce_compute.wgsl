// One pass of a reduction on the compute path (WebGPU): workgroup (x, y) takes the texels of the
// 64 x 64 block from (64x, 64y) that exist, 16 per invocation (neighbouring invocations read
// neighbouring texels), and writes their sum (or largest |element|) as output texel (x, y). A
// pass shrinks the texture 4096-fold, where a fragment pass (reduce.wgsl) shrinks it 16-fold,
// and a GPU runs it on all its cores. The 256 invocations' terms then meet in workgroup memory,
// in a tree of eight halvings, {merge} joining two of them.
var<workgroup> partial: array<vec4<f32>, 256>;

fn merge(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> {
    return {merge};
}

@compute @workgroup_size(16, 16)
fn cs_main(@builtin(workgroup_id) group: vec3<u32>,
           @builtin(local_invocation_id) local: vec3<u32>,
           @builtin(local_invocation_index) index: u32) {
    var acc = vec4<f32>(0.0);
    for (var j = 0; j < 4; j++) {
        let y = 64 * i32(group.y) + 16 * j + i32(local.y);
        for (var i = 0; i < 4; i++) {
            let x = 64 * i32(group.x) + 16 * i + i32(local.x);
            if (x < a_width() && y < a_height()) {
                acc = {combine};
            }
        }
    }
    partial[index] = acc;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (index < s) {
            partial[index] = merge(partial[index], partial[index + s]);
        }
        workgroupBarrier();
    }
    if (index == 0u) {
        textureStore(out_tex, vec2<i32>(group.xy), partial[0]);
    }
}
