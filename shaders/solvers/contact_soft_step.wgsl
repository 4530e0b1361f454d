// One colour's pass of the soft step (src/solver/contact_soft.rs; float64 twin
// ContactLcp::solve_soft). The colour's contacts step S = T + x from
// w = b + late g h (a - b) e.y + J v: the normal row closes a gap (s > 0) within h, else
// x_n <- max(0, x_n - m P_n (w_n + max(rate s, -max)) - k x_n); in the rigid sweep (rate 0,
// m 1, k 0) the friction rows follow as in contact_gauss_seidel.wgsl. Inputs: a = J, b = v
// (contact_velocities over S), c = S, d = T (s in w), e = b, f = P = 1 / diag(A). param(0)
// colour, (1) mu (negative: the soft sweep, no friction), (2) h, (3) late g h, (4) rate,
// (5) m, (6) k, (7) the largest correction (m/s).

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
    let dv = body_texel(ka, 0) - body_texel(kb, 0);
    let wa = body_texel(ka, 1);
    let wb = body_texel(kb, 1);
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
