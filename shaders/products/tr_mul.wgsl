// C = A^T * B without building A^T: A is k x m, B is k x n, C is m x n.
// Output texel (x, y) holds C rows 4y..4y+3 of column x; C(4y+c, x) = dot(column 4y+c of A,
// column x of B), and both columns come four rows per texel, so each step is four dot products.
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let x = texel.x;
    let y = texel.y;
    let m = a_cols();
    var acc = vec4<f32>(0.0);
    for (var p4 = 0; p4 < a_height(); p4++) {
        let b = b_texel(x, p4);
        // Columns of A past m do not exist: their results are padding, left at zero.
        let a0 = a_texel(4 * y, p4);
        let a1 = select(vec4<f32>(0.0), a_texel(min(4 * y + 1, m - 1), p4), 4 * y + 1 < m);
        let a2 = select(vec4<f32>(0.0), a_texel(min(4 * y + 2, m - 1), p4), 4 * y + 2 < m);
        let a3 = select(vec4<f32>(0.0), a_texel(min(4 * y + 3, m - 1), p4), 4 * y + 3 < m);
        acc += vec4<f32>(dot(a0, b), dot(a1, b), dot(a2, b), dot(a3, b));
    }
    return acc;
}
