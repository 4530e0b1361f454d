// The first of the factored accelerated iteration's two passes (the second is
// contact_nesterov_factored.wgsl): A = J M^-1 J^T + R as its factors
// (src/solver/contact_factors.rs has the layout), and A y in two gathers, each fragment over
// what it owns. This pass, one body slot per output texel pair:
//
//   v_k = M_k^-1 sum over k's contacts c of s (J_c,k)^T y_c      (s = +1 for a, -1 for b)
//
// Output: v, two texel columns per body segment, in the bodies' wrap (body slot k at texel row
// k % H_b of segment k / H_b): column 2 (k / H_b) the linear velocity, 2 (k / H_b) + 1 the
// angular one (fourth value 0). Each half sums its own three texels of J per listed contact:
// the directions e (linear) or the lever arms r x e of the body's side (angular).
//
// Inputs: a = J (9 texel columns per contact), b = the bodies (param(0) texel columns each: the
// inverse inertia's rows, the inverse mass in texel 0's w, then the contacts as 2c + side, -1
// after), c = y (one texel per contact, its fourth value the momentum counter, unused here). J
// and y lie in the contacts' wrap (contact_layout.wgsl, put before this body), whose height is
// y's, not this output's. Padding body slots list no contact: their v is zero.

fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let width = i32(param(0));
    let base = width * (texel.x / 2);
    let angular = texel.x % 2 == 1;
    let row = texel.y;
    var sum = vec3<f32>(0.0);
    for (var q = 3; q < width; q++) {
        let list = vec4<i32>(b_texel(base + q, row));
        for (var s = 0; s < 4; s++) {
            let entry = list[s];
            if (entry < 0) { break; }
            let side = entry % 2;
            let at = contact_place(entry / 2, c_height());
            let y = c_texel(at.x, at.y).xyz;
            let k = select(0, 3 + 3 * side, angular);
            let col = contact_column(at.x, k, 9);
            let towards = 1.0 - 2.0 * f32(side);
            sum += towards * (y.x * a_texel(col, at.y).xyz + y.y * a_texel(col + 1, at.y).xyz + y.z * a_texel(col + 2, at.y).xyz);
        }
        if (list.w < 0) { break; }
    }
    let i0 = b_texel(base, row);
    if (!angular) {
        return vec4<f32>(i0.w * sum, 0.0);
    }
    let i1 = b_texel(base + 1, row).xyz;
    let i2 = b_texel(base + 2, row).xyz;
    return vec4<f32>(dot(i0.xyz, sum), dot(i1, sum), dot(i2, sum), 0.0);
}
