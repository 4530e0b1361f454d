// C = A * B on the compute path (WebGPU only): workgroup-memory tiling and register blocking.
//
// A workgroup of 16 x 16 threads computes a block of {BN} output columns x 32 output texel rows
// ({BN} x 128 matrix elements). Each thread keeps 8 output texels per half of 64 columns in
// registers, c<i><h><c>: texel rows ty and ty + 16 (i = 0, 1) of columns 64 h + 4 tx .. + 3 (c =
// 0..3) for each half h of the block, so that neighbouring threads read neighbouring words of
// workgroup memory. The inner dimension goes in chunks of {BK}: the workgroup copies the A texels
// (k0 .. k0+{BK}, its 32 texel rows) and the B texels (its {BN} columns, rows k0 .. k0+{BK}) into
// workgroup memory, B regrouped into vec4s of four neighbouring columns, while the texels of the
// next chunk are already on their way into registers. Then, per k, every thread reads 2 + {BN} / 64
// vec4 from workgroup memory and does 8 vec4 multiply-adds per half. Every register is a named
// variable and the {BK} steps of a chunk are written out (`kernels::repeat_block` repeats the
// block between the two marker comments below): nothing indexes registers at run time, which
// compilers that keep loops rolled would put in memory. Blocks of 128 columns (two halves) are
// the default; blocks of 64 give twice the workgroups where C has too few blocks to fill the GPU.
//
// Split k: where C has too few blocks to fill the GPU, the output is `slices` partial products
// stacked, each ceil(texel rows of C / 32) * 32 texel rows high, slice s summing its own range of
// k (whole chunks); sum_slices.wgsl adds them into C. With one slice the output is C itself.

const BK: i32 = {BK};
const BN: i32 = {BN};

var<workgroup> a_tile: array<array<vec4<f32>, 32>, {BK}>;   // [k][texel row]
var<workgroup> b_tile: array<array<vec4<f32>, {BG}>, {BK}>;   // [k][group of 4 columns]

// Thread li copies A texels li + 256 e, e < {BK} / 8, and B texels li + 256 f, f < {BN} {BK} /
// 1024, of each chunk (chunk_fetch.wgsl, below).
// Stores a B texel (rows 4q .. 4q+3 of column c of the chunk) as one word in each of four rows
// of the tile.
fn store_b(i: i32, v: vec4<f32>) {
    let c = i % BN;
    let q = i / BN;
    b_tile[4 * q][c / 4][c % 4] = v.x;
    b_tile[4 * q + 1][c / 4][c % 4] = v.y;
    b_tile[4 * q + 2][c / 4][c % 4] = v.z;
    b_tile[4 * q + 3][c / 4][c % 4] = v.w;
}
fn store(x: i32, y: i32, v: vec4<f32>) {
    if (x < out_cols() && y < (out_rows() + 3) / 4) {
        textureStore(out_tex, vec2<i32>(x, y), v);
    }
}

@compute @workgroup_size(16, 16)
fn cs_main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) index: u32) {
    let li = i32(index);
    let tx = li % 16;
    let ty = li / 16;
    let groups = (a_height() + 31) / 32;
    let slice = i32(group.y) / groups;
    let slices = (out_rows() + 127) / 128 / groups;
    // The block of C: row block rb of its slice, column block cb.
    let rb = i32(group.y) % groups;
    let cb = i32(group.x);
    let col0 = cb * BN;
    let row0 = rb * 32;
    let out_row0 = (slice * groups + rb) * 32;
    let k_slice = ((a_cols() + slices - 1) / slices + BK - 1) / BK * BK;
    let k_begin = slice * k_slice;
    let k_end = min(a_cols(), k_begin + k_slice);
    var c0{h}0 = vec4<f32>(0.0); var c0{h}1 = vec4<f32>(0.0); var c0{h}2 = vec4<f32>(0.0); var c0{h}3 = vec4<f32>(0.0);
    var c1{h}0 = vec4<f32>(0.0); var c1{h}1 = vec4<f32>(0.0); var c1{h}2 = vec4<f32>(0.0); var c1{h}3 = vec4<f32>(0.0);
    // The lines of na and nb are written out once for each texel e and f a thread copies.
    var na{e} = fetch_a(li + 256 * {e}, k_begin, k_end, row0);
    var nb{f} = fetch_b(li + 256 * {f}, k_begin, col0);
    for (var k0 = k_begin; k0 < k_end; k0 += BK) {
        workgroupBarrier();
        a_tile[(li + 256 * {e}) / 32][(li + 256 * {e}) % 32] = na{e};
        store_b(li + 256 * {f}, nb{f});
        workgroupBarrier();
        // The next chunk's texels, fetched while this chunk is multiplied.
        na{e} = fetch_a(li + 256 * {e}, k0 + BK, k_end, row0);
        nb{f} = fetch_b(li + 256 * {f}, k0 + BK, col0);
        // The chunk's sums start from zero and are added to the running sums once (blocked
        // summation): a rounding error grows with k / {BK} + {BK} steps, not with k.
        var d0{h}0 = vec4<f32>(0.0); var d0{h}1 = vec4<f32>(0.0); var d0{h}2 = vec4<f32>(0.0); var d0{h}3 = vec4<f32>(0.0);
        var d1{h}0 = vec4<f32>(0.0); var d1{h}1 = vec4<f32>(0.0); var d1{h}2 = vec4<f32>(0.0); var d1{h}3 = vec4<f32>(0.0);
        // {p} begin: step k0 + {p} of the chunk, written out for each {p} < {BK}.
        {
            let a0 = a_tile[{p}][ty];
            let a1 = a_tile[{p}][ty + 16];
            let b{h} = b_tile[{p}][tx + 16 * {h}];
            d0{h}0 += a0 * b{h}.x; d0{h}1 += a0 * b{h}.y; d0{h}2 += a0 * b{h}.z; d0{h}3 += a0 * b{h}.w;
            d1{h}0 += a1 * b{h}.x; d1{h}1 += a1 * b{h}.y; d1{h}2 += a1 * b{h}.z; d1{h}3 += a1 * b{h}.w;
        }
        // {p} end
        c0{h}0 += d0{h}0; c0{h}1 += d0{h}1; c0{h}2 += d0{h}2; c0{h}3 += d0{h}3;
        c1{h}0 += d1{h}0; c1{h}1 += d1{h}1; c1{h}2 += d1{h}2; c1{h}3 += d1{h}3;
    }
    let y0 = out_row0 + ty;
    let y1 = out_row0 + ty + 16;
    let x{h} = col0 + 64 * {h} + 4 * tx;
    store(x{h}, y0, c0{h}0); store(x{h} + 1, y0, c0{h}1); store(x{h} + 2, y0, c0{h}2); store(x{h} + 3, y0, c0{h}3);
    store(x{h}, y1, c1{h}0); store(x{h} + 1, y1, c1{h}1); store(x{h} + 2, y1, c1{h}2); store(x{h} + 3, y1, c1{h}3);
}
