// One colour's pass of the soft step (src/physics/soft.rs explains the step;
// ContactLcp::solve_soft is its float64 twin): one contact per output texel. The state is S,
// the impulses applied so far (the finished substeps' T plus this substep's x); the contacts of
// the colour param(0) share no moving body, so each takes x = S - T and solves its rows
// against the newest impulses of all others at once; every other contact keeps its S. With
// the bodies' velocities v = M^-1 J^T S (contact_velocities.wgsl after the last colour's pass)
// and the gravity still to come,
//
//   w = b + late g (a - b) e.y + J_c,a v_a - J_c,b v_b
//
// the normal row (s, the separation, in T's fourth value):
//
//   s > 0:      x_n <- max(0, x_n - P_n (w_n + s / h))                  (close the gap, no more)
//   otherwise:  x_n <- max(0, x_n - m P_n (w_n + max(rate s, -max)) - k x_n)    (the spring)
//
// (the rigid sweep: rate 0, m = 1, k = 0), then, in the rigid sweep only, each friction row
// within mu x_n, w updated by A_cc's off-diagonal as in contact_gauss_seidel.wgsl.
//
// Inputs: a = J (9 texel columns per contact, contact_factors.rs), b = v (the bodies' wrap), c =
// S, d = T (s in w), e = b of the LCP (no correction target), f = P = 1 / diag(A), the contacts
// wrapped as contact_layout.wgsl (put before this body) says. param(0) = the colour, param(1)
// = mu (negative in the soft sweep: no friction rows), param(2) = h, param(3) = late g h,
// param(4) = the spring's rate (1/s), param(5) = m, param(6) = k, param(7) = the largest
// correction (m/s). Output: the new S. Padding contacts (J, b and P zero) stay zero.

fn soft_velocity(k: i32, part: i32) -> vec3<f32> {
    if (k < 0) { return vec3<f32>(0.0); }
    let at = contact_place(k, b_height());
    return b_texel(2 * at.x + part, at.y).xyz;
}

fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let i = texel.y;
    let col = contact_column(texel.x, 0, 9);
    let applied = c_texel(texel.x, i).xyz;
    let third = a_texel(col + 2, i);
    if (i32(third.w) != i32(param(0))) {
        return vec4<f32>(applied, 0.0);
    }
    let t = d_texel(texel.x, i);
    let x = applied - t.xyz;
    let head = a_texel(col, i);
    let tail = a_texel(col + 1, i);
    let ka = i32(head.w) - 1;
    let kb = i32(tail.w) - 1;
    let dv = soft_velocity(ka, 0) - soft_velocity(kb, 0);
    let wa = soft_velocity(ka, 1);
    let wb = soft_velocity(kb, 1);
    let p = f_texel(texel.x, i).xyz;
    let arm_n = a_texel(col + 3, i);
    let arm_t1 = a_texel(col + 4, i);
    let arm_t2 = a_texel(col + 5, i);
    let sides = f32(ka >= 0) - f32(kb >= 0);
    var w = e_texel(texel.x, i).xyz + param(3) * sides * vec3<f32>(head.y, tail.y, third.y);
    w.x += dot(head.xyz, dv) + dot(arm_n.xyz, wa) - dot(a_texel(col + 6, i).xyz, wb);
    w.y += dot(tail.xyz, dv) + dot(arm_t1.xyz, wa) - dot(a_texel(col + 7, i).xyz, wb);
    w.z += dot(third.xyz, dv) + dot(arm_t2.xyz, wa) - dot(a_texel(col + 8, i).xyz, wb);
    var goal = t.w / param(2);
    var scale = 1.0;
    var keep = 0.0;
    if (t.w <= 0.0) {
        goal = max(param(4) * t.w, -param(7));
        scale = param(5);
        keep = param(6);
    }
    let n = max(x.x - scale * p.x * (w.x + goal) - keep * x.x, 0.0);
    if (param(1) < 0.0) {
        return vec4<f32>(t.xyz + vec3<f32>(n, x.y, x.z), 0.0);
    }
    // A_cc's off-diagonal: n t1, n t2, t1 t2.
    let off = vec3<f32>(arm_n.w, arm_t1.w, arm_t2.w);
    let dn = n - x.x;
    w.y += off.x * dn;
    w.z += off.y * dn;
    let limit = param(1) * n;
    let t1 = clamp(x.y - p.y * w.y, -limit, limit);
    w.z += off.z * (t1 - x.y);
    let t2 = clamp(x.z - p.z * w.z, -limit, limit);
    return vec4<f32>(t.xyz + vec3<f32>(n, t1, t2), 0.0);
}
