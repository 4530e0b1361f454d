// C = A * B on the compute path (WebGPU only): workgroup-memory tiling and register blocking.
//
// A workgroup of 16 x 16 threads computes a block of 64*{TC4} output columns x 16*{TR} output
// texel rows (64*{TR} matrix rows). Each thread keeps {TR} x 4*{TC4} output texels in
// registers: texel rows ty + 16 i and column groups tx + 16 j of four columns each, so that
// neighbouring threads read neighbouring words of workgroup memory. The inner dimension goes in
// chunks of {BK}: the workgroup copies the A texels (k0 .. k0+{BK}, its texel rows) and the B
// texels (its columns, rows k0 .. k0+{BK}) into workgroup memory, B transposed into groups of
// four columns, while the texels of the next chunk are already being fetched into registers.
// Then, per k, every thread reads {TR} + {TC4} vec4 from workgroup memory and does
// {TR} * 4*{TC4} vec4 multiply-adds: {TR}*{TC4}*16 scalar multiply-adds per {TR}+{TC4} reads.

const BK: i32 = {BK};
const TR: i32 = {TR};
const TC4: i32 = {TC4};
const ROWS: i32 = 16 * {TR};    // texel rows of the block
const GROUPS: i32 = 16 * {TC4}; // column groups of the block
const COLS: i32 = 64 * {TC4};   // columns of the block
const A_LOADS: i32 = ({BK} * 16 * {TR} + 255) / 256;        // A texels per thread per chunk
const B_LOADS: i32 = (64 * {TC4} * ({BK} / 4) + 255) / 256; // B texels per thread per chunk

var<workgroup> a_tile: array<array<vec4<f32>, ROWS>, BK>;
var<workgroup> b_tile: array<array<vec4<f32>, GROUPS>, BK>;

// The A texels and B texels thread `li` copies for the chunk starting at k0, zero outside.
fn fetch_a(li: i32, e: i32, k0: i32, row0: i32) -> vec4<f32> {
    let i = li + 256 * e;
    let p = k0 + i / ROWS;
    let r = row0 + i % ROWS;
    if (i < BK * ROWS && p < a_cols() && r < a_height()) {
        return a_texel(p, r);
    }
    return vec4<f32>(0.0);
}
fn fetch_b(li: i32, e: i32, k0: i32, col0: i32) -> vec4<f32> {
    let i = li + 256 * e;
    let c = col0 + i % COLS;
    let q = k0 / 4 + i / COLS;
    if (i < COLS * (BK / 4) && c < b_cols() && q < b_height()) {
        return b_texel(c, q);
    }
    return vec4<f32>(0.0);
}

@compute @workgroup_size(16, 16)
fn cs_main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let tx = i32(local.x);
    let ty = i32(local.y);
    let li = ty * 16 + tx;
    let col0 = i32(group.x) * COLS;
    let row0 = i32(group.y) * ROWS;
    let k = a_cols();
    var acc: array<array<vec4<f32>, 4 * {TC4}>, {TR}>;
    var next_a: array<vec4<f32>, A_LOADS>;
    var next_b: array<vec4<f32>, B_LOADS>;
    for (var e = 0; e < A_LOADS; e++) { next_a[e] = fetch_a(li, e, 0, row0); }
    for (var e = 0; e < B_LOADS; e++) { next_b[e] = fetch_b(li, e, 0, col0); }
    for (var k0 = 0; k0 < k; k0 += BK) {
        workgroupBarrier();
        for (var e = 0; e < A_LOADS; e++) {
            let i = li + 256 * e;
            if (i < BK * ROWS) { a_tile[i / ROWS][i % ROWS] = next_a[e]; }
        }
        for (var e = 0; e < B_LOADS; e++) {
            // Texel (c, q) holds B rows k0 + 4q .. + 3 of column c: one word in each of four
            // rows of the tile, in column group c / 4.
            let i = li + 256 * e;
            if (i < COLS * (BK / 4)) {
                let c = i % COLS;
                let q = i / COLS;
                for (var w = 0; w < 4; w++) {
                    b_tile[4 * q + w][c / 4][c % 4] = next_b[e][w];
                }
            }
        }
        workgroupBarrier();
        // Fetch the next chunk while this one is multiplied.
        for (var e = 0; e < A_LOADS; e++) { next_a[e] = fetch_a(li, e, k0 + BK, row0); }
        for (var e = 0; e < B_LOADS; e++) { next_b[e] = fetch_b(li, e, k0 + BK, col0); }
        for (var p = 0; p < BK; p++) {
            var a: array<vec4<f32>, {TR}>;
            for (var i = 0; i < TR; i++) { a[i] = a_tile[p][ty + 16 * i]; }
            for (var j = 0; j < TC4; j++) {
                let b = b_tile[p][tx + 16 * j];
                for (var i = 0; i < TR; i++) {
                    acc[i][4 * j] += a[i] * b.x;
                    acc[i][4 * j + 1] += a[i] * b.y;
                    acc[i][4 * j + 2] += a[i] * b.z;
                    acc[i][4 * j + 3] += a[i] * b.w;
                }
            }
        }
    }
    for (var i = 0; i < TR; i++) {
        let y = row0 + ty + 16 * i;
        for (var j = 0; j < TC4; j++) {
            for (var w = 0; w < 4; w++) {
                let x = col0 + 4 * (tx + 16 * j) + w;
                if (x < out_cols() && y < (out_rows() + 3) / 4) {
                    textureStore(out_tex, vec2<i32>(x, y), acc[i][4 * j + w]);
                }
            }
        }
    }
}
