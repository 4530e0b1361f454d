// Upload on WebGPU: packs a row-major matrix, written into a storage buffer as the caller gave
// it, into its texture (texel (x, y) holds rows 4y .. 4y+3 of column x, src/layout.rs), so the
// CPU never repacks. Rows past the end of the matrix are padding: written as zeros.
//
// One invocation per texel, 64 consecutive columns per workgroup row, so the loads are
// coalesced. The shape comes from the bindings: columns = the texture's width, rows = the
// buffer's length (bound at exactly rows x columns floats) / columns.

@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var matrix: texture_storage_2d<rgba32float, write>;

@compute @workgroup_size(64, 4)
fn cs_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(matrix);
    let cols = size.x;
    let rows = arrayLength(&values) / cols;
    let j = id.x;
    let y = id.y;
    if (j >= cols || y >= size.y) {
        return;
    }
    var texel = vec4<f32>(0.0);
    for (var c = 0u; c < 4u; c++) {
        let i = 4u * y + c;
        if (i < rows) {
            texel[c] = values[i * cols + j];
        }
    }
    textureStore(matrix, vec2<u32>(j, y), texel);
}
