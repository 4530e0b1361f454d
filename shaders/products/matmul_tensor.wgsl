enable f16;
enable wgpu_cooperative_matrix;
// C = A * B of float16 matrices on cooperative matrices (natively only: an NVIDIA GPU's tensor
// cores through wgpu's experimental cooperative matrices on Vulkan). Products of float16 values
// are exact in float32, and the sums are float32.
//
// A workgroup of 256 invocations (8 subgroups of 32) computes a block of 128 x 128 elements of
// C. Subgroup s holds 4 x 2 tiles of 16 x 16 of it in cooperative matrices c<m><n>: rows
// 64 (s % 2) + 16 m, columns 32 (s / 2) + 16 n. The inner dimension goes in chunks of {BK}: the
// workgroup copies the A texels (its 32 texel rows, k0 .. k0+{BK}) and the B texels (its 128
// columns, rows k0 .. k0+{BK}) into workgroup memory as float16, both column-major, while the
// next chunk's texels are already on their way into registers; then each step of 16 in k loads 4
// tiles of A and 2 of B and does 8 multiply-adds of 16 x 16 x 16. At the end each tile goes
// through workgroup memory into the output texture, one texel a store.

const BK: i32 = {BK};
const BN: i32 = 128; // block width in columns (chunk_fetch.wgsl)
// Strides of the tiles in workgroup memory, padded by 8 halves against bank conflicts.
const AS: i32 = 136;
const BS: i32 = {BK} + 8;

var<workgroup> a_tile: array<f16, {BK} * 136>;       // (row r, k) at k AS + r
var<workgroup> b_tile: array<f16, 128 * ({BK} + 8)>; // (k, column c) at c BS + k
var<workgroup> c_tile: array<f32, 8 * 256>;          // subgroup s's tile: (r, c) at 256 s + 16 c + r

// Thread li copies texels li + 256 e, e < {BK} / 8, of each chunk (chunk_fetch.wgsl, below)
// and stores them as float16.
fn store_a(i: i32, v: vec4<f32>) {
    let at = (i / 32) * AS + 4 * (i % 32);
    a_tile[at] = f16(v.x);
    a_tile[at + 1] = f16(v.y);
    a_tile[at + 2] = f16(v.z);
    a_tile[at + 3] = f16(v.w);
}
fn store_b(i: i32, v: vec4<f32>) {
    let at = (i % 128) * BS + 4 * (i / 128);
    b_tile[at] = f16(v.x);
    b_tile[at + 1] = f16(v.y);
    b_tile[at + 2] = f16(v.z);
    b_tile[at + 3] = f16(v.w);
}
// Tile `c` of subgroup s at rows `row` and columns `col` of C (elements), through workgroup
// memory: lane l stores texels l and l + 32 of the tile's 4 texel rows x 16 columns.
fn store_tile(c: coop_mat16x16<f32, C>, s: i32, lane: i32, row: i32, col: i32) {
    coopStore(c, &c_tile[256 * s], 16u);
    workgroupBarrier();
    for (var t = lane; t < 64; t += 32) {
        let at = 256 * s + 16 * (t % 16) + 4 * (t / 16);
        let x = col + t % 16;
        let y = row / 4 + t / 16;
        if (x < out_cols() && y < (out_rows() + 3) / 4) {
            let v = vec4<f32>(c_tile[at], c_tile[at + 1], c_tile[at + 2], c_tile[at + 3]);
            textureStore(out_tex, vec2<i32>(x, y), v);
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(256)
fn cs_main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) index: u32) {
    let li = i32(index);
    let s = li / 32;
    let lane = li % 32;
    let col0 = i32(group.x) * 128;
    let row0 = i32(group.y) * 32;
    let ra = 64 * (s % 2);
    let cb = 32 * (s / 2);
    var c00 = coop_mat16x16<f32, C>(); var c01 = coop_mat16x16<f32, C>();
    var c10 = coop_mat16x16<f32, C>(); var c11 = coop_mat16x16<f32, C>();
    var c20 = coop_mat16x16<f32, C>(); var c21 = coop_mat16x16<f32, C>();
    var c30 = coop_mat16x16<f32, C>(); var c31 = coop_mat16x16<f32, C>();
    // The lines of na and nb are written out once for each texel e (of {BK} / 8) a thread copies.
    var na{e} = fetch_a(li + 256 * {e}, 0, a_cols(), row0);
    var nb{e} = fetch_b(li + 256 * {e}, 0, col0);
    for (var k0 = 0; k0 < a_cols(); k0 += BK) {
        workgroupBarrier();
        store_a(li + 256 * {e}, na{e});
        store_b(li + 256 * {e}, nb{e});
        workgroupBarrier();
        na{e} = fetch_a(li + 256 * {e}, k0 + BK, a_cols(), row0);
        nb{e} = fetch_b(li + 256 * {e}, k0 + BK, col0);
        // {q} begin: the step of 16 at k0 + 16 {q}, written out for each {q} < {BK} / 16.
        {
            let a0 = coopLoad<coop_mat16x16<f16, A>>(&a_tile[16 * {q} * AS + ra], u32(AS));
            let a1 = coopLoad<coop_mat16x16<f16, A>>(&a_tile[16 * {q} * AS + ra + 16], u32(AS));
            let a2 = coopLoad<coop_mat16x16<f16, A>>(&a_tile[16 * {q} * AS + ra + 32], u32(AS));
            let a3 = coopLoad<coop_mat16x16<f16, A>>(&a_tile[16 * {q} * AS + ra + 48], u32(AS));
            let b0 = coopLoad<coop_mat16x16<f16, B>>(&b_tile[cb * BS + 16 * {q}], u32(BS));
            let b1 = coopLoad<coop_mat16x16<f16, B>>(&b_tile[(cb + 16) * BS + 16 * {q}], u32(BS));
            c00 = coopMultiplyAdd(a0, b0, c00); c01 = coopMultiplyAdd(a0, b1, c01);
            c10 = coopMultiplyAdd(a1, b0, c10); c11 = coopMultiplyAdd(a1, b1, c11);
            c20 = coopMultiplyAdd(a2, b0, c20); c21 = coopMultiplyAdd(a2, b1, c21);
            c30 = coopMultiplyAdd(a3, b0, c30); c31 = coopMultiplyAdd(a3, b1, c31);
        }
        // {q} end
    }
    let r = 4 * row0 + ra;
    store_tile(c00, s, lane, r, col0 + cb); store_tile(c01, s, lane, r, col0 + cb + 16);
    store_tile(c10, s, lane, r + 16, col0 + cb); store_tile(c11, s, lane, r + 16, col0 + cb + 16);
    store_tile(c20, s, lane, r + 32, col0 + cb); store_tile(c21, s, lane, r + 32, col0 + cb + 16);
    store_tile(c30, s, lane, r + 48, col0 + cb); store_tile(c31, s, lane, r + 48, col0 + cb + 16);
}
