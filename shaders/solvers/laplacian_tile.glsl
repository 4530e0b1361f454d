// laplacian.glsl for one tile of a grid too large for one texture (src/gpu/tiles.rs): the
// 5-point Laplacian of the tile's elements, the neighbours across its edges taken from the
// tiles beside it: b to the left, c to the right, d above, e below. param(0..3) say whether each
// of them exists (1) or the tile's edge is the grid's (0: zero outside the grid; the input is
// then a placeholder never read). Tiles of one row of the grid have the same rows, of one column
// the same columns.

// Element (row, col) of the grid around this tile, in the tile's coordinates: row -1 is the
// last row of the tile above, row a_rows() the first row of the tile below, and so on.
float grid(int row, int col) {
    if (row < 0) {
        if (param(2) == 0.0) { return 0.0; }
        int r = d_rows() - 1;
        return d_texel(col, r / 4)[r % 4];
    }
    if (row >= a_rows()) {
        if (param(3) == 0.0) { return 0.0; }
        return e_texel(col, 0).x;
    }
    if (col < 0) {
        if (param(0) == 0.0) { return 0.0; }
        return b_texel(b_cols() - 1, row / 4)[row % 4];
    }
    if (col >= a_cols()) {
        if (param(1) == 0.0) { return 0.0; }
        return c_texel(0, row / 4)[row % 4];
    }
    return a_texel(col, row / 4)[row % 4];
}

vec4 kernel(ivec2 texel) {
    vec4 result = vec4(0.0);
    int c = texel.x;
    for (int k = 0; k < 4; k++) {
        int r = 4 * texel.y + k;
        if (r < a_rows()) {
            result[k] = 4.0 * grid(r, c) - grid(r, c - 1) - grid(r, c + 1) - grid(r - 1, c)
                - grid(r + 1, c);
        }
    }
    return result;
}
