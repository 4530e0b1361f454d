// y = A x on the compute path (WebGPU only).
//
// A workgroup of LANES x TY threads computes 2 * TY texels of y (8 * TY rows). Thread
// (lane, ty) walks the column quads lane, lane + LANES, ... of texel rows 2 ty and 2 ty + 1 of
// the block: one x texel serves eight A texels (register blocking), and neighbouring lanes read
// neighbouring columns. The LANES partial sums of each texel row then meet in workgroup memory
// and are added up in a tree of halvings, so one dispatch does what the fragment path needs two
// passes for. kernels::matvec_tiled declares LANES and TY before this: 128 x 2 (4 texel rows a
// workgroup) where 64 x 4 (8) would leave fewer than 256 workgroups.

var<workgroup> partial: array<array<vec4<f32>, LANES>, 2 * TY>;

@compute @workgroup_size(LANES, TY)
fn cs_main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let lane = i32(local.x);
    let ty = i32(local.y);
    let n = a_cols();
    let y0 = i32(group.y) * 2 * TY + 2 * ty;
    // Rows past the matrix read its last texel row and are never stored.
    let r0 = min(y0, a_height() - 1);
    let r1 = min(y0 + 1, a_height() - 1);
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    let quads = n / 4;
    for (var q = lane; q < quads; q += LANES) {
        let x = b_texel(0, q);
        let j = 4 * q;
        acc0 += a_texel(j, r0) * x.x + a_texel(j + 1, r0) * x.y
              + a_texel(j + 2, r0) * x.z + a_texel(j + 3, r0) * x.w;
        acc1 += a_texel(j, r1) * x.x + a_texel(j + 1, r1) * x.y
              + a_texel(j + 2, r1) * x.z + a_texel(j + 3, r1) * x.w;
    }
    // The last n % 4 columns (x's padding rows are zero, but A has no texels past n - 1).
    let j = 4 * quads + lane;
    if (lane < n % 4) {
        let x = b_texel(0, quads)[lane];
        acc0 += a_texel(j, r0) * x;
        acc1 += a_texel(j, r1) * x;
    }
    partial[2 * ty][lane] = acc0;
    partial[2 * ty + 1][lane] = acc1;
    workgroupBarrier();
    for (var s = LANES / 2; s > 0; s >>= 1) {
        if (lane < s) {
            partial[2 * ty][lane] += partial[2 * ty][lane + s];
            partial[2 * ty + 1][lane] += partial[2 * ty + 1][lane + s];
        }
        workgroupBarrier();
    }
    let height = (out_rows() + 3) / 4;
    if (lane < 2 && y0 + lane < height) {
        textureStore(out_tex, vec2<i32>(0, y0 + lane), partial[2 * ty + lane][0]);
    }
}
