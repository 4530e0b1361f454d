// Read-back on WebGPU: unpacks a matrix texture (texel (x, y) holds rows 4y .. 4y+3 of column
// x, src/layout.rs) into a row-major buffer, so what is copied to the CPU is the matrix exactly
// as it is returned: no padding, no 256-byte row alignment, no repacking on the CPU.
//
// One invocation per texel: it loads the texel once and writes its (up to) four rows; the
// 64 invocations along x write consecutive columns, so the stores are coalesced. The shape
// comes from the bindings themselves: columns = the texture's width, rows = the buffer's
// length (bound at exactly rows x columns floats) / columns.

@group(0) @binding(0) var<storage, read_write> values: array<f32>;
@group(0) @binding(1) var matrix: texture_2d<f32>;

@compute @workgroup_size(64, 4)
fn cs_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let cols = textureDimensions(matrix).x;
    let rows = arrayLength(&values) / cols;
    let j = id.x;
    let y = id.y;
    if (j >= cols || 4u * y >= rows) {
        return;
    }
    let texel = textureLoad(matrix, vec2<u32>(j, y), 0);
    for (var c = 0u; c < 4u; c++) {
        let i = 4u * y + c;
        if (i < rows) {
            values[i * cols + j] = texel[c];
        }
    }
}
