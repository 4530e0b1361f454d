// The soft step's separations (src/solver/contact_soft.rs; float64 twin
// ContactLcp::solve_soft): T with each contact's separation after the displacement so far in
// its fourth value, s = s0 + start b_n + early (a - b) e_n.y + J_n shift. Inputs: a = J (s0 in
// texel 6's w), b = shift (contact_velocities over P), c = T, d = b. param(0) = start,
// param(1) = early g h.

fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let i = texel.y;
    let col = contact_column(texel.x, 0, 9);
    let head = a_texel(col, i);
    let ka = i32(head.w) - 1;
    let kb = i32(a_texel(col + 1, i).w) - 1;
    let sides = f32(ka >= 0) - f32(kb >= 0);
    let shifted = dot(head.xyz, body_texel(ka, 0) - body_texel(kb, 0))
        + dot(a_texel(col + 3, i).xyz, body_texel(ka, 1))
        - dot(a_texel(col + 6, i).xyz, body_texel(kb, 1));
    let s = a_texel(col + 6, i).w + param(0) * d_texel(texel.x, i).x + param(1) * sides * head.y + shifted;
    return vec4<f32>(c_texel(texel.x, i).xyz, s);
}
