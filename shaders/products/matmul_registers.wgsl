// C = A * B on the compute path with no workgroup memory and no barrier: each invocation keeps
// a block of {R} output texel rows x {C} output columns ({R} x 4 x {C} elements of C) in vec4
// registers, acc{r}{c} for texel row row0 + r and column col0 + c. Per step of four k it fetches
// the 4 x {R} A texels of its rows (columns p .. p+3) and the {C} B texels of its columns (rows
// p .. p+3): with texla's default 4 x 32 (ProductKernel::REGISTERS), 48 fetches for 512 vec4
// multiply-adds, where the fast fragment kernel (matmul_fast.*), held to 8 render targets,
// makes 12 fetches for 32. Where fetches are what costs and barriers are
// expensive (a CPU emulating the GPU: SwiftShader), this is the product that wins. Reads past
// the matrices are clamped to their last texel (their results are never stored); the last
// k % 4 columns of A are taken with zeros past k - 1.
@compute @workgroup_size(8, 8)
fn cs_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let col0 = i32(id.x) * {C};
    let row0 = i32(id.y) * {R};
    let k = a_cols();
    let y{r} = min(row0 + {r}, a_height() - 1);
    let x{c} = min(col0 + {c}, b_cols() - 1);
    var acc{r}{c} = vec4<f32>(0.0);
    var p = 0;
    for (; p + 4 <= k; p += 4) {
        let b{c} = b_texel(x{c}, p / 4);
        let a{r}0 = a_texel(p, y{r}); let a{r}1 = a_texel(p + 1, y{r}); let a{r}2 = a_texel(p + 2, y{r}); let a{r}3 = a_texel(p + 3, y{r});
        acc{r}{c} += a{r}0 * b{c}.x + a{r}1 * b{c}.y + a{r}2 * b{c}.z + a{r}3 * b{c}.w;
    }
    if (p < k) {
        let b{c} = b_texel(x{c}, p / 4);
        let a{r}0 = a_texel(p, y{r}); let a{r}1 = select(vec4<f32>(0.0), a_texel(min(p + 1, k - 1), y{r}), p + 1 < k); let a{r}2 = select(vec4<f32>(0.0), a_texel(min(p + 2, k - 1), y{r}), p + 2 < k);
        acc{r}{c} += a{r}0 * b{c}.x + a{r}1 * b{c}.y + a{r}2 * b{c}.z;
    }
    let rows = (out_rows() + 3) / 4;
    if (col0 + {c} < out_cols() && row0 + {r} < rows) { textureStore(out_tex, vec2<i32>(col0 + {c}, row0 + {r}), acc{r}{c}); }
}
