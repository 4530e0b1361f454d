// C = A * B, the fast fragment kernel: {T} output texels per fragment, one per render target.
//
// The output is cut into {T} slabs of out_cols() columns each; render target t receives slab t,
// and the backend copies the slabs side by side into C afterwards. The fragment at (x, y)
// computes the texels (x + t * out_cols(), y) for every t: the four A texels of a step (a 4x4
// block, rows 4y..4y+3) are fetched ONCE and used {T} times, against {T} B texels. Per step of
// four k: 4 + {T} fetches for 16 * {T} multiply-adds, where the teaching kernel (matmul.glsl)
// does 5 fetches for 16. Lines naming target t are written out once per target (kernel.rs),
// so each accumulator is its own variable and nothing is indexed at run time.
void kernel(ivec2 texel, out vec4 r[{T}]) {
    int y = texel.y;
    int k = a_cols();
    // Columns past B's last (in the last slab) are clamped to it: computed, never copied.
    int col{t} = min(texel.x + {t} * out_cols(), b_cols() - 1);
    vec4 acc{t} = vec4(0.0);
    int p = 0;
    // Blocks of 64 k, each summed from zero and added to the running sums once (blocked
    // summation): a rounding error grows with k / 64 + 16 steps, not with k / 4.
    int k4 = k - k % 4;
    while (p < k4) {
        int end = min(p + 64, k4);
        vec4 part{t} = vec4(0.0);
        for (; p < end; p += 4) {
            vec4 a0 = a_texel(p, y);
            vec4 a1 = a_texel(p + 1, y);
            vec4 a2 = a_texel(p + 2, y);
            vec4 a3 = a_texel(p + 3, y);
            vec4 b{t} = b_texel(col{t}, p / 4);
            part{t} += a0 * b{t}.x + a1 * b{t}.y + a2 * b{t}.z + a3 * b{t}.w;
        }
        acc{t} += part{t};
    }
    // The last k % 4 columns of A (B's padding rows are zero; A has no texels past k - 1).
    if (p < k) {
        vec4 a0 = a_texel(p, y);
        vec4 a1 = p + 1 < k ? a_texel(p + 1, y) : vec4(0.0);
        vec4 a2 = p + 2 < k ? a_texel(p + 2, y) : vec4(0.0);
        vec4 b{t} = b_texel(col{t}, p / 4);
        acc{t} += a0 * b{t}.x + a1 * b{t}.y + a2 * b{t}.z;
    }
    r[{t}] = acc{t};
}
