// One colour's pass of graph-coloured projected Gauss-Seidel (src/solver/contact_colours.rs):
// one contact per output texel. Contacts of the colour param(0) share no moving body, so each
// solves its own 3 x 3 block against the newest impulses of all others at once; every other
// contact keeps its impulses. The bodies' velocities v = M^-1 J^T x come from
// contact_velocities.wgsl after the last colour's pass; A x through the factors as in
// contact_nesterov_factored.wgsl,
//
//   w = (A x + b)_c = b_c + J_c,a v_a - J_c,b v_b + R_c x_c
//
// then row by row, each row's w updated by the changes before it (A_cc's off-diagonal):
//
//   x_n  <- max(0, x_n - P_n w_n);                    w += A_cc[., n] dx_n
//   x_t1 <- clamp(x_t1 - P_t1 w_t1, +-mu x_n);        w += A_cc[., t1] dx_t1
//   x_t2 <- clamp(x_t2 - P_t2 w_t2, +-mu x_n)
//
// Inputs: a = J (9 texel columns per contact: e_n, e_t1, e_t2 with the body slots of a and b
// plus 1 and the colour in the w's; r_a x e with A_cc's off-diagonal (n t1, n t2, t1 t2) in
// the w's; r_b x e), b = v (the bodies' wrap, two texel columns per segment: linear, angular),
// c = x, d = b of the LCP, e = P = 1 / diag(A), the contacts wrapped as contact_layout.wgsl
// (put before this body) says. param(0) = the colour, param(1) = mu, param(2) = R's factor.
// Padding contacts (J, b and P zero) stay zero.

fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let i = texel.y;
    let col = contact_column(texel.x, 0, 9);
    var x = c_texel(texel.x, i).xyz;
    let third = a_texel(col + 2, i);
    if (i32(third.w) != i32(param(0))) {
        return vec4<f32>(x, 0.0);
    }
    let head = a_texel(col, i);
    let tail = a_texel(col + 1, i);
    let ka = i32(head.w) - 1;
    let kb = i32(tail.w) - 1;
    let dv = body_texel(ka, 0) - body_texel(kb, 0);
    let wa = body_texel(ka, 1);
    let wb = body_texel(kb, 1);
    let p = e_texel(texel.x, i).xyz;
    let regularisation = param(2) / (1.0 + param(2));
    let arm_n = a_texel(col + 3, i);
    let arm_t1 = a_texel(col + 4, i);
    let arm_t2 = a_texel(col + 5, i);
    var w = d_texel(texel.x, i).xyz + regularisation * select(vec3<f32>(0.0), x / p, p > vec3<f32>(0.0));
    w.x += dot(head.xyz, dv) + dot(arm_n.xyz, wa) - dot(a_texel(col + 6, i).xyz, wb);
    w.y += dot(tail.xyz, dv) + dot(arm_t1.xyz, wa) - dot(a_texel(col + 7, i).xyz, wb);
    w.z += dot(third.xyz, dv) + dot(arm_t2.xyz, wa) - dot(a_texel(col + 8, i).xyz, wb);
    // A_cc's off-diagonal: n t1, n t2, t1 t2.
    let off = vec3<f32>(arm_n.w, arm_t1.w, arm_t2.w);
    let n = max(x.x - p.x * w.x, 0.0);
    let dn = n - x.x;
    w.y += off.x * dn;
    w.z += off.y * dn;
    let limit = param(1) * n;
    let t1 = clamp(x.y - p.y * w.y, -limit, limit);
    w.z += off.z * (t1 - x.y);
    let t2 = clamp(x.z - p.z * w.z, -limit, limit);
    return vec4<f32>(n, t1, t2, 0.0);
}
