// One projected Jacobi iteration of the contact LCP (src/physics/lcp.rs has the layout).
// Output texel row i is contact i: (normal, tangent 1, tangent 2, 0) impulses. Inputs:
// a = A (dense: column 4j + c is column c of block A_ij; blocks: column 4s + c for neighbour s),
// b = neighbour lists (blocks only), c = x, d = b of the LCP, e = 1 / diag(A), f = mu (row 0).
// param(0) = omega (negative, seed convention), param(1) = blocks per contact, param(2) = 1 for
// dense. The friction bound uses this contact's new normal impulse, in the same fragment.
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let i = texel.y;
    let count = i32(param(1));
    let dense = param(2) > 0.5;
    var w = d_texel(0, i);
    for (var s = 0; s < count; s++) {
        var j = s;
        if (!dense) {
            let list = b_texel(s / 4, i);
            j = i32(list[s % 4]);
            if (j < 0) { break; }
        }
        let xj = c_texel(0, j);
        w += a_texel(4 * s, i) * xj.x + a_texel(4 * s + 1, i) * xj.y + a_texel(4 * s + 2, i) * xj.z;
    }
    let y = c_texel(0, i) + param(0) * e_texel(0, i) * w;
    let n = max(y.x, 0.0);
    let limit = f_texel(0, i).x * n;
    return vec4<f32>(n, clamp(y.yz, vec2<f32>(-limit), vec2<f32>(limit)), 0.0);
}
