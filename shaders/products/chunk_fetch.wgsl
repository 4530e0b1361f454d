// Texel i of the chunk of k at k0, zero outside the matrices and (A) from k_end on. A: texel row
// row0 + i % 32 of column k0 + i / 32. B: column col0 + i % BN, texel row k0 / 4 + i / BN (BN:
// the kernel's block width in columns).
fn fetch_a(i: i32, k0: i32, k_end: i32, row0: i32) -> vec4<f32> {
    let p = k0 + i / 32;
    let r = row0 + i % 32;
    if (p < k_end && r < a_height()) {
        return a_texel(p, r);
    }
    return vec4<f32>(0.0);
}
fn fetch_b(i: i32, k0: i32, col0: i32) -> vec4<f32> {
    let c = col0 + i % BN;
    let q = k0 / 4 + i / BN;
    if (c < b_cols() && q < b_height()) {
        return b_texel(c, q);
    }
    return vec4<f32>(0.0);
}
