// y = A x for the 2D Poisson matrix (problems::poisson_2d) without A: the 5-point Laplacian of
// x laid out as the grid it lives on (element (r, c) = grid point (gy, gx) = (r, c), zero
// outside the grid):
//     y(r, c) = 4 x(r, c) - x(r, c - 1) - x(r, c + 1) - x(r - 1, c) - x(r + 1, c).
// A texel holds rows 4y..4y+3 of column x: the left and right neighbours are the texels beside
// it; the rows above and below are the texel itself shifted by one row, the missing row taken
// from the texel above or below (past the last row: padding, zero).
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let here = a_texel(texel.x, texel.y);
    var left = vec4<f32>(0.0);
    if (texel.x > 0) {
        left = a_texel(texel.x - 1, texel.y);
    }
    var right = vec4<f32>(0.0);
    if (texel.x + 1 < a_cols()) {
        right = a_texel(texel.x + 1, texel.y);
    }
    var above = 0.0;
    if (texel.y > 0) {
        above = a_texel(texel.x, texel.y - 1).w;
    }
    var below = 0.0;
    if (texel.y + 1 < a_height()) {
        below = a_texel(texel.x, texel.y + 1).x;
    }
    let up = vec4<f32>(above, here.xyz);
    let down = vec4<f32>(here.yzw, below);
    return 4.0 * here - left - right - up - down;
}
