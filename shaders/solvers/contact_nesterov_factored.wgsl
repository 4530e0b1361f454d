// The second of the factored accelerated iteration's two passes (the first,
// contact_velocities.wgsl, made the bodies' velocities v = M^-1 J^T y): one contact per output
// texel, the step of contact_nesterov.wgsl (which explains it) with A y through the factors,
//
//   (A y)_c = J_c,a v_a - J_c,b v_b + R_c y_c
//
// 9 texels of J and 4 of v per contact instead of A's block row. Two render targets: x (fourth
// value 0) and y (fourth value the momentum counter).
//
// Inputs: a = J (9 texel columns per contact: e_n, e_t1, e_t2 with the body slots of a and b
// plus 1 in the first two w's, 0 for the ground; then r_a x e and r_b x e), b = v (the
// bodies' wrap, two texel columns per segment: linear, angular), c = y, d = x, e = b of the
// LCP, f = P = 1 / diag(A), the contacts wrapped as contact_layout.wgsl (put before this body)
// says. param(0) = the step s (negative), param(1) = mu, param(2) = R's factor (A's own
// diagonal is 1 + R times J M^-1 J^T's, so R_c y_c = R / (1 + R) y_c / P_c). Padding contacts
// (J, b and P zero) stay zero.

// Half `part` (0 linear, 1 angular) of v of body slot k (k < 0: the ground, at rest).
fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    let i = texel.y;
    let col = contact_column(texel.x, 0, 9);
    let head = a_texel(col, i);
    let tail = a_texel(col + 1, i);
    let ka = i32(head.w) - 1;
    let kb = i32(tail.w) - 1;
    let dv = body_texel(ka, 0) - body_texel(kb, 0);
    let wa = body_texel(ka, 1);
    let wb = body_texel(kb, 1);
    let y = c_texel(texel.x, i);
    let x = d_texel(texel.x, i).xyz;
    let p = f_texel(texel.x, i).xyz;
    let regularisation = param(2) / (1.0 + param(2));
    var w = e_texel(texel.x, i).xyz + regularisation * select(vec3<f32>(0.0), y.xyz / p, p > vec3<f32>(0.0));
    w.x += dot(head.xyz, dv) + dot(a_texel(col + 3, i).xyz, wa) - dot(a_texel(col + 6, i).xyz, wb);
    w.y += dot(tail.xyz, dv) + dot(a_texel(col + 4, i).xyz, wa) - dot(a_texel(col + 7, i).xyz, wb);
    w.z += dot(a_texel(col + 2, i).xyz, dv) + dot(a_texel(col + 5, i).xyz, wa) - dot(a_texel(col + 8, i).xyz, wb);
    let z = y.xyz + param(0) * p * w;
    return nesterov_step(z, y, x, param(1));
}
