// Float16 upload on WebGPU: rounds a row-major float32 matrix, written into a storage buffer as
// the caller gave it, to float16 and packs it as its RGBA16F texture's rows (texel (x, y) holds
// rows 4y .. 4y+3 of column x, src/layout.rs) into a second buffer. A copy moves that buffer
// into the texture, so the texture needs no storage usage: a float16 texture stays a copy
// destination that kernels read. Rows past the end of the matrix are padding: zeros.
//
// Each texel is two words (two float16 values each, the lower row in the low half), and each
// texel row of the texture starts at a multiple of 256 bytes, as a buffer-to-texture copy
// needs. The rounding is written out in integer arithmetic, to the nearest float16 with ties
// to even (the CPU's `half::f16::from_f32`, bit for bit), where WGSL leaves the rounding of its
// own conversions to the implementation. One invocation per texel, 64 consecutive columns per
// workgroup row. The shape comes from the bindings: columns and texel rows = the texture's
// size, rows = the values' length (bound at exactly rows x columns floats) / columns.

@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var matrix: texture_2d<f32>;
@group(0) @binding(2) var<storage, read_write> halves: array<u32>;

// The float16 bits of `v`, rounded to the nearest float16, ties to even. Past float16's range
// an infinity (uploads check the range first); infinities and NaN stay so.
fn float16_bits(v: f32) -> u32 {
    let x = bitcast<u32>(v);
    let sign = (x >> 16u) & 0x8000u;
    let exponent = i32((x >> 23u) & 0xffu);
    let mantissa = x & 0x7fffffu;
    if (exponent == 255) {
        return sign | 0x7c00u | select(0u, 0x200u | (mantissa >> 13u), mantissa != 0u);
    }
    let e = exponent - 112;
    if (e >= 31) {
        return sign | 0x7c00u;
    }
    if (e <= 0) {
        // A subnormal float16 (or zero): drop 14 - e bits of the mantissa with its leading 1.
        if (e < -10) {
            return sign;
        }
        let whole = mantissa | 0x800000u;
        let drop = u32(14 - e);
        let kept = whole >> drop;
        let rest = whole & ((1u << drop) - 1u);
        let half_way = 1u << (drop - 1u);
        let up = rest > half_way || (rest == half_way && (kept & 1u) == 1u);
        return sign | (kept + u32(up));
    }
    // A normal float16: a carry out of the mantissa moves to the next exponent, as it should.
    let kept = (u32(e) << 10u) | (mantissa >> 13u);
    let rest = mantissa & 0x1fffu;
    let up = rest > 0x1000u || (rest == 0x1000u && (kept & 1u) == 1u);
    return sign | (kept + u32(up));
}

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
    var bits = array<u32, 4>(0u, 0u, 0u, 0u);
    for (var c = 0u; c < 4u; c++) {
        let i = 4u * y + c;
        if (i < rows) {
            bits[c] = float16_bits(values[i * cols + j]);
        }
    }
    // Words a texel row takes in the buffer: 8 bytes a texel, rounded up to 256 bytes.
    let stride = (cols * 8u + 255u) / 256u * 64u;
    let at = y * stride + 2u * j;
    halves[at] = bits[0] | (bits[1] << 16u);
    halves[at + 1u] = bits[2] | (bits[3] << 16u);
}
