// One colour's pass of the soft step; the twin of contact_soft_step.wgsl, which explains it.

vec4 kernel(ivec2 texel) {
    int i = texel.y;
    int col = contact_column(texel.x, 0, 9);
    vec3 applied = c_texel(texel.x, i).xyz;
    vec4 third = a_texel(col + 2, i);
    if (int(third.w) != int(param(0))) {
        return vec4(applied, 0.0);
    }
    vec4 t = d_texel(texel.x, i);
    vec3 x = applied - t.xyz;
    vec4 head = a_texel(col, i);
    vec4 tail = a_texel(col + 1, i);
    int ka = int(head.w) - 1;
    int kb = int(tail.w) - 1;
    vec3 dv = body_texel(ka, 0) - body_texel(kb, 0);
    vec3 wa = body_texel(ka, 1);
    vec3 wb = body_texel(kb, 1);
    vec3 p = f_texel(texel.x, i).xyz;
    vec4 arm_n = a_texel(col + 3, i);
    vec4 arm_t1 = a_texel(col + 4, i);
    vec4 arm_t2 = a_texel(col + 5, i);
    float sides = float(ka >= 0) - float(kb >= 0);
    vec3 w = e_texel(texel.x, i).xyz + param(3) * sides * vec3(head.y, tail.y, third.y);
    w.x += dot(head.xyz, dv) + dot(arm_n.xyz, wa) - dot(a_texel(col + 6, i).xyz, wb);
    w.y += dot(tail.xyz, dv) + dot(arm_t1.xyz, wa) - dot(a_texel(col + 7, i).xyz, wb);
    w.z += dot(third.xyz, dv) + dot(arm_t2.xyz, wa) - dot(a_texel(col + 8, i).xyz, wb);
    float goal = t.w / param(2);
    float scale = 1.0;
    float keep = 0.0;
    if (t.w <= 0.0) {
        goal = max(param(4) * t.w, -param(7));
        scale = param(5);
        keep = param(6);
    }
    float n = max(x.x - scale * p.x * (w.x + goal) - keep * x.x, 0.0);
    if (param(1) < 0.0) {
        return vec4(t.xyz + vec3(n, x.y, x.z), 0.0);
    }
    vec3 off = vec3(arm_n.w, arm_t1.w, arm_t2.w);
    float dn = n - x.x;
    w.y += off.x * dn;
    w.z += off.y * dn;
    float limit = param(1) * n;
    float t1 = clamp(x.y - p.y * w.y, -limit, limit);
    w.z += off.z * (t1 - x.y);
    float t2 = clamp(x.z - p.z * w.z, -limit, limit);
    return vec4(t.xyz + vec3(n, t1, t2), 0.0);
}
