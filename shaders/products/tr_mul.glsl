// C = A^T * B without building A^T: A is k x m, B is k x n, C is m x n.
// Output texel (x, y) holds C rows 4y..4y+3 of column x; C(4y+c, x) = dot(column 4y+c of A,
// column x of B), and both columns come four rows per texel, so each step is four dot products.
vec4 kernel(ivec2 texel) {
    int x = texel.x;
    int y = texel.y;
    int m = a_cols();
    vec4 acc = vec4(0.0);
    for (int p4 = 0; p4 < a_height(); p4++) {
        vec4 b = b_texel(x, p4);
        // Columns of A past m do not exist: their results are padding, left at zero.
        vec4 a0 = a_texel(4 * y, p4);
        vec4 a1 = 4 * y + 1 < m ? a_texel(4 * y + 1, p4) : vec4(0.0);
        vec4 a2 = 4 * y + 2 < m ? a_texel(4 * y + 2, p4) : vec4(0.0);
        vec4 a3 = 4 * y + 3 < m ? a_texel(4 * y + 3, p4) : vec4(0.0);
        acc += vec4(dot(a0, b), dot(a1, b), dot(a2, b), dot(a3, b));
    }
    return acc;
}
