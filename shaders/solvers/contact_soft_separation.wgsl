// The soft step's separations (src/physics/soft.rs explains the step; ContactLcp::solve_soft
// is its float64 twin): per contact, the separation s after the bodies' displacement so far,
//
//   s = s0 + start (b_n) + early (a - b) g e_n.y + J_n,a shift_a - J_n,b shift_b
//
// s0 the separation at the frame's start, b_n the normal velocity the frame started with, the
// gravity term what the gravity still missing in the substeps before held back (a, b: 1 where
// the side is a moving body), shift = M^-1 J^T P the bodies' displacement by the impulses.
// Output: T with s in its fourth value (its first three, the finished substeps' impulses,
// kept).
//
// Inputs: a = J (9 texel columns per contact, contact_factors.rs), b = shift (from
// contact_velocities over P: linear and turn, two texel columns per body segment), c = T, d = b
// of the LCP (no correction target), e = mu (its second row: s0), the contacts wrapped as
// contact_layout.wgsl (put before this body) says. param(0) = start (s), param(1) = early (g h
// times the substeps' s). Padding contacts (J, b and mu zero) get s = 0.

fn soft_shift(k: i32, part: i32) -> vec3<f32> {
    if (k < 0) { return vec3<f32>(0.0); }
    let at = contact_place(k, b_height());
    return b_texel(2 * at.x + part, at.y).xyz;
}

fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let i = texel.y;
    let col = contact_column(texel.x, 0, 9);
    let head = a_texel(col, i);
    let ka = i32(head.w) - 1;
    let kb = i32(a_texel(col + 1, i).w) - 1;
    let sides = f32(ka >= 0) - f32(kb >= 0);
    let shifted = dot(head.xyz, soft_shift(ka, 0) - soft_shift(kb, 0))
        + dot(a_texel(col + 3, i).xyz, soft_shift(ka, 1))
        - dot(a_texel(col + 6, i).xyz, soft_shift(kb, 1));
    let s = e_texel(texel.x, i).y + param(0) * d_texel(texel.x, i).x + param(1) * sides * head.y + shifted;
    return vec4<f32>(c_texel(texel.x, i).xyz, s);
}
