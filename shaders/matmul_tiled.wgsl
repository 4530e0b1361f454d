// C = A * B on the compute path (WebGPU only): workgroup-memory tiling and register blocking.
//
// A workgroup of 8 x 8 threads computes a block of 32 output columns x 8 output texel rows
// (32 x 32 matrix elements). Each thread keeps 4 output texels (4 columns x 4 rows) in
// registers. The inner dimension goes in chunks of 16: the workgroup first copies the 8 x 16
// texels of A and the 4 x 32 texels of B that the chunk needs into workgroup memory (each thread
// fetches 2 + 2 texels), then every thread does 16 x 4 vec4 multiply-adds from there: 64 MADs of
// four lanes per four texel fetches, where the fragment kernel does 16 per five.

const TILE_K: i32 = 16;
var<workgroup> a_tile: array<array<vec4<f32>, 16>, 8>;
var<workgroup> b_tile: array<array<vec4<f32>, 32>, 4>;

@compute @workgroup_size(8, 8)
fn cs_main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let tx = i32(local.x);
    let ty = i32(local.y);
    let li = ty * 8 + tx;
    let col0 = i32(group.x) * 32;
    let row0 = i32(group.y) * 8;
    let k = a_cols();
    var acc = array<vec4<f32>, 4>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k0 = 0; k0 < k; k0 += TILE_K) {
        for (var e = li; e < 128; e += 64) {
            // A: texel (k0 + p, row0 + r), zero past the matrix.
            let r = e / 16;
            let p = e % 16;
            var av = vec4<f32>(0.0);
            if (k0 + p < k && row0 + r < a_height()) {
                av = a_texel(k0 + p, row0 + r);
            }
            a_tile[r][p] = av;
            // B: texel (col0 + c, k0 / 4 + q): rows k0 + 4q .. + 3 of column col0 + c.
            let q = e / 32;
            let c = e % 32;
            var bv = vec4<f32>(0.0);
            if (col0 + c < b_cols() && k0 / 4 + q < b_height()) {
                bv = b_texel(col0 + c, k0 / 4 + q);
            }
            b_tile[q][c] = bv;
        }
        workgroupBarrier();
        for (var p = 0; p < TILE_K; p++) {
            let a = a_tile[ty][p];
            for (var c = 0; c < 4; c++) {
                acc[c] += a * b_tile[p / 4][tx * 4 + c][p % 4];
            }
        }
        workgroupBarrier();
    }
    let y = row0 + ty;
    for (var c = 0; c < 4; c++) {
        let x = col0 + tx * 4 + c;
        if (x < out_cols() && y < (out_rows() + 3) / 4) {
            textureStore(out_tex, vec2<i32>(x, y), acc[c]);
        }
    }
}
