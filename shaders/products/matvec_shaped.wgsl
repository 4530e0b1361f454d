// y = A x on the compute path (WebGPU only), in a shape of the native benchmark's choosing
// (`Gpu::mul_vec_shaped`): workgroups of {L} lanes x {T} threads, {R} texel rows of A per thread,
// {U} column quads per trip of its loop.
//
// Thread (lane, ty) walks the column quads lane, lane + {L}, ... of texel rows {R} ty ..
// {R} ty + {R} - 1 of the workgroup's {TR}: per trip {U} x texels and {U} x 4 x {R} A texels, all
// loaded before the first is used, one x texel serving 4 x {R} of them. The {L} partial sums of
// each texel row then meet in workgroup memory and are added in two steps, two barriers
// whatever {L} is: 8 threads a row each add {L} / 8 of them, then one thread a row adds the 8.

var<workgroup> partial: array<array<vec4<f32>, {L}>, {TR}>;

@compute @workgroup_size({L}, {T})
fn cs_main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let lane = i32(local.x);
    let ty = i32(local.y);
    let n = a_cols();
    let row0 = i32(group.y) * {TR};
    let y0 = row0 + {R} * ty;
    // Rows past the matrix read its last texel row and are never stored.
    let r{r} = min(y0 + {r}, a_height() - 1);
    var acc{r} = vec4<f32>(0.0);
    let quads = n / 4;
    var q = lane;
    for (; q + {L} * ({U} - 1) < quads; q += {L} * {U}) {
        let x{u} = b_texel(0, q + {L} * {u});
        let j{u} = 4 * (q + {L} * {u});
        let a{u}{r}0 = a_texel(j{u}, r{r}); let a{u}{r}1 = a_texel(j{u} + 1, r{r}); let a{u}{r}2 = a_texel(j{u} + 2, r{r}); let a{u}{r}3 = a_texel(j{u} + 3, r{r});
        acc{r} += a{u}{r}0 * x{u}.x + a{u}{r}1 * x{u}.y + a{u}{r}2 * x{u}.z + a{u}{r}3 * x{u}.w;
    }
    // The quads left over when {U} > 1, one a trip.
    for (; q < quads; q += {L}) {
        let x = b_texel(0, q);
        let j = 4 * q;
        acc{r} += a_texel(j, r{r}) * x.x + a_texel(j + 1, r{r}) * x.y + a_texel(j + 2, r{r}) * x.z + a_texel(j + 3, r{r}) * x.w;
    }
    // The last n % 4 columns (x's padding rows are zero, but A has no texels past n - 1).
    if (lane < n % 4) {
        let x = b_texel(0, quads)[lane];
        acc{r} += a_texel(4 * quads + lane, r{r}) * x;
    }
    partial[{R} * ty + {r}][lane] = acc{r};
    workgroupBarrier();
    // Thread li < 8 {TR} adds lanes part, part + 8, ... of texel row li / 8 into lane part.
    let li = ty * {L} + lane;
    let row = li / 8;
    let part = li % 8;
    if (li < 8 * {TR}) {
        var s = vec4<f32>(0.0);
        for (var i = part; i < {L}; i += 8) {
            s += partial[row][i];
        }
        partial[row][part] = s;
    }
    workgroupBarrier();
    let height = (out_rows() + 3) / 4;
    if (li < {TR} && row0 + li < height) {
        let p = partial[li][0] + partial[li][1] + partial[li][2] + partial[li][3]
              + partial[li][4] + partial[li][5] + partial[li][6] + partial[li][7];
        textureStore(out_tex, vec2<i32>(0, row0 + li), p);
    }
}
