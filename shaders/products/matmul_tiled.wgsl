// C = A * B on the compute path (WebGPU only): workgroup-memory tiling and register blocking.
//
// A workgroup of 16 x 16 threads computes a block of 128 output columns x 32 output texel rows
// (128 x 128 matrix elements). Each thread keeps 16 output texels in registers, c<i><c>: texel
// rows ty and ty + 16 (i = 0, 1) of columns 4 tx .. 4 tx + 3 and 64 + 4 tx .. + 3 (c = 0..7),
// so that neighbouring threads read neighbouring words of workgroup memory. The inner dimension
// goes in chunks of {BK}: the workgroup copies the A texels (k0 .. k0+{BK}, its 32 texel rows) and
// the B texels (its 128 columns, rows k0 .. k0+{BK}) into workgroup memory, B regrouped into
// vec4s of four neighbouring columns, while the texels of the next chunk are already on their way
// into registers. Then, per k, every thread reads 4 vec4 from workgroup memory and does 16 vec4
// multiply-adds: 64 scalar multiply-adds per 4 reads. Every register is a named variable and
// the {BK} steps of a chunk are written out (`kernels::repeat_block` repeats the block between
// the two marker comments below): nothing indexes registers at run time, which compilers that
// keep loops rolled would put in memory.
//
// Split k: where C has too few blocks to fill the GPU, the output is `slices` partial products
// stacked, each ceil(texel rows of C / 32) * 32 texel rows high, slice s summing its own range of
// k (whole chunks); sum_slices.wgsl adds them into C. With one slice the output is C itself.

const BK: i32 = {BK};

var<workgroup> a_tile: array<array<vec4<f32>, 32>, {BK}>;   // [k][texel row]
var<workgroup> b_tile: array<array<vec4<f32>, 32>, {BK}>;   // [k][group of 4 columns]

// Thread li copies texels li + 256 e, e < {BK} / 8, of each chunk (chunk_fetch.wgsl, below).
// Stores a B texel (rows 4q .. 4q+3 of column c of the chunk) as one word in each of four rows
// of the tile.
fn store_b(i: i32, v: vec4<f32>) {
    let c = i % 128;
    let q = i / 128;
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
    let col0 = cb * 128;
    let row0 = rb * 32;
    let out_row0 = (slice * groups + rb) * 32;
    let k_slice = ((a_cols() + slices - 1) / slices + BK - 1) / BK * BK;
    let k_begin = slice * k_slice;
    let k_end = min(a_cols(), k_begin + k_slice);
    var c00 = vec4<f32>(0.0); var c01 = vec4<f32>(0.0); var c02 = vec4<f32>(0.0); var c03 = vec4<f32>(0.0);
    var c04 = vec4<f32>(0.0); var c05 = vec4<f32>(0.0); var c06 = vec4<f32>(0.0); var c07 = vec4<f32>(0.0);
    var c10 = vec4<f32>(0.0); var c11 = vec4<f32>(0.0); var c12 = vec4<f32>(0.0); var c13 = vec4<f32>(0.0);
    var c14 = vec4<f32>(0.0); var c15 = vec4<f32>(0.0); var c16 = vec4<f32>(0.0); var c17 = vec4<f32>(0.0);
    // The lines of na and nb are written out once for each texel e (of {BK} / 8) a thread copies.
    var na{e} = fetch_a(li + 256 * {e}, k_begin, k_end, row0);
    var nb{e} = fetch_b(li + 256 * {e}, k_begin, col0);
    for (var k0 = k_begin; k0 < k_end; k0 += BK) {
        workgroupBarrier();
        a_tile[(li + 256 * {e}) / 32][(li + 256 * {e}) % 32] = na{e};
        store_b(li + 256 * {e}, nb{e});
        workgroupBarrier();
        // The next chunk's texels, fetched while this chunk is multiplied.
        na{e} = fetch_a(li + 256 * {e}, k0 + BK, k_end, row0);
        nb{e} = fetch_b(li + 256 * {e}, k0 + BK, col0);
        // The chunk's sums start from zero and are added to the running sums once (blocked
        // summation): a rounding error grows with k / {BK} + {BK} steps, not with k.
        var d00 = vec4<f32>(0.0); var d01 = vec4<f32>(0.0); var d02 = vec4<f32>(0.0); var d03 = vec4<f32>(0.0);
        var d04 = vec4<f32>(0.0); var d05 = vec4<f32>(0.0); var d06 = vec4<f32>(0.0); var d07 = vec4<f32>(0.0);
        var d10 = vec4<f32>(0.0); var d11 = vec4<f32>(0.0); var d12 = vec4<f32>(0.0); var d13 = vec4<f32>(0.0);
        var d14 = vec4<f32>(0.0); var d15 = vec4<f32>(0.0); var d16 = vec4<f32>(0.0); var d17 = vec4<f32>(0.0);
        // {p} begin: step k0 + {p} of the chunk, written out for each {p} < {BK}.
        {
            let a0 = a_tile[{p}][ty];
            let a1 = a_tile[{p}][ty + 16];
            let b0 = b_tile[{p}][tx];
            let b1 = b_tile[{p}][tx + 16];
            d00 += a0 * b0.x; d01 += a0 * b0.y; d02 += a0 * b0.z; d03 += a0 * b0.w;
            d04 += a0 * b1.x; d05 += a0 * b1.y; d06 += a0 * b1.z; d07 += a0 * b1.w;
            d10 += a1 * b0.x; d11 += a1 * b0.y; d12 += a1 * b0.z; d13 += a1 * b0.w;
            d14 += a1 * b1.x; d15 += a1 * b1.y; d16 += a1 * b1.z; d17 += a1 * b1.w;
        }
        // {p} end
        c00 += d00; c01 += d01; c02 += d02; c03 += d03; c04 += d04; c05 += d05; c06 += d06; c07 += d07;
        c10 += d10; c11 += d11; c12 += d12; c13 += d13; c14 += d14; c15 += d15; c16 += d16; c17 += d17;
    }
    let x0 = col0 + 4 * tx;
    let x1 = col0 + 64 + 4 * tx;
    let y0 = out_row0 + ty;
    let y1 = out_row0 + ty + 16;
    store(x0, y0, c00); store(x0 + 1, y0, c01); store(x0 + 2, y0, c02); store(x0 + 3, y0, c03);
    store(x1, y0, c04); store(x1 + 1, y0, c05); store(x1 + 2, y0, c06); store(x1 + 3, y0, c07);
    store(x0, y1, c10); store(x0 + 1, y1, c11); store(x0 + 2, y1, c12); store(x0 + 3, y1, c13);
    store(x1, y1, c14); store(x1 + 1, y1, c15); store(x1 + 2, y1, c16); store(x1 + 3, y1, c17);
}
