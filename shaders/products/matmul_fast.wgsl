// C = A * B, the fast fragment kernel: {T} output texels per fragment, one per render target.
//
// The output is cut into {T} slabs of out_cols() columns each; render target t receives slab t,
// and the backend copies the slabs side by side into C afterwards. The fragment at (x, y)
// computes the texels (x + t * out_cols(), y) for every t: the four A texels of a step (a 4x4
// block, rows 4y..4y+3) are fetched ONCE and used {T} times, against {T} B texels. Per step of
// four k: 4 + {T} fetches for 16 * {T} multiply-adds, where the teaching kernel (matmul.wgsl)
// does 5 fetches for 16. Lines naming target t are written out once per target (kernel.rs),
// so each accumulator is its own variable and nothing is indexed at run time.
fn kernel(texel: vec2<i32>) -> array<vec4<f32>, {T}> {
    let y = texel.y;
    let k = a_cols();
    // Columns past B's last (in the last slab) are clamped to it: computed, never copied.
    let col{t} = min(texel.x + {t} * out_cols(), b_cols() - 1);
    var acc{t} = vec4<f32>(0.0);
    var p = 0;
    // Blocks of 64 k, each summed from zero and added to the running sums once (blocked
    // summation): a rounding error grows with k / 64 + 16 steps, not with k / 4.
    let k4 = k - k % 4;
    while (p < k4) {
        let end = min(p + 64, k4);
        var part{t} = vec4<f32>(0.0);
        for (; p < end; p += 4) {
            let a0 = a_texel(p, y);
            let a1 = a_texel(p + 1, y);
            let a2 = a_texel(p + 2, y);
            let a3 = a_texel(p + 3, y);
            let b{t} = b_texel(col{t}, p / 4);
            part{t} += a0 * b{t}.x + a1 * b{t}.y + a2 * b{t}.z + a3 * b{t}.w;
        }
        acc{t} += part{t};
    }
    // The last k % 4 columns of A (B's padding rows are zero; A has no texels past k - 1).
    if (p < k) {
        let a0 = a_texel(p, y);
        let a1 = select(vec4<f32>(0.0), a_texel(min(p + 1, k - 1), y), p + 1 < k);
        let a2 = select(vec4<f32>(0.0), a_texel(min(p + 2, k - 1), y), p + 2 < k);
        let b{t} = b_texel(col{t}, p / 4);
        acc{t} += a0 * b{t}.x + a1 * b{t}.y + a2 * b{t}.z;
    }
    return array<vec4<f32>, {T}>({ACCS});
}
