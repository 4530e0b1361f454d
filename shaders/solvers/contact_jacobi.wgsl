// One projected Jacobi iteration of the contact LCP (src/physics/lcp.rs has the layout of one
// segment, contact_layout.wgsl, put before this body, the wrap into segments). Output texel
// (s, y) is the contact at row y of segment s: (normal, tangent 1, tangent 2, 0) impulses.
// Inputs: a = A (dense: column 4j + c is column c of block A_ij; blocks: column 4s + c for
// neighbour s; 4 * param(1) columns per contact), b = neighbour lists (blocks only, param(1) / 4
// columns per contact), c = x, d = b of the LCP, e = 1 / diag(A), f = mu (row 0).
// param(0) = omega (negative, seed convention), param(1) = blocks per contact, param(2) = 1 for
// dense. The friction bound uses this contact's new normal impulse, in the same fragment.
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let i = texel.y;
    let count = i32(param(1));
    let dense = param(2) > 0.5;
    var w = d_texel(texel.x, i);
    for (var s = 0; s < count; s++) {
        var j = s;
        if (!dense) {
            let list = b_texel(contact_column(texel.x, s / 4, count / 4), i);
            j = i32(list[s % 4]);
            if (j < 0) { break; }
        }
        let at = contact_texel(j);
        let xj = c_texel(at.x, at.y);
        let col = contact_column(texel.x, 4 * s, 4 * count);
        w += a_texel(col, i) * xj.x + a_texel(col + 1, i) * xj.y + a_texel(col + 2, i) * xj.z;
    }
    let y = c_texel(texel.x, i) + param(0) * e_texel(texel.x, i) * w;
    let n = max(y.x, 0.0);
    let limit = f_texel(texel.x, i).x * n;
    return vec4<f32>(n, clamp(y.yz, vec2<f32>(-limit), vec2<f32>(limit)), 0.0);
}
