// One colour's pass of graph-coloured projected Gauss-Seidel; the twin of
// contact_gauss_seidel.wgsl, which explains it.

vec4 kernel(ivec2 texel) {
    int i = texel.y;
    int col = contact_column(texel.x, 0, 9);
    vec3 x = c_texel(texel.x, i).xyz;
    vec4 third = a_texel(col + 2, i);
    if (int(third.w) != int(param(0))) {
        return vec4(x, 0.0);
    }
    vec4 head = a_texel(col, i);
    vec4 tail = a_texel(col + 1, i);
    int ka = int(head.w) - 1;
    int kb = int(tail.w) - 1;
    vec3 dv = body_texel(ka, 0) - body_texel(kb, 0);
    vec3 wa = body_texel(ka, 1);
    vec3 wb = body_texel(kb, 1);
    vec3 p = e_texel(texel.x, i).xyz;
    float regularisation = param(2) / (1.0 + param(2));
    vec4 arm_n = a_texel(col + 3, i);
    vec4 arm_t1 = a_texel(col + 4, i);
    vec4 arm_t2 = a_texel(col + 5, i);
    vec3 w = d_texel(texel.x, i).xyz + regularisation * mix(vec3(0.0), x / p, greaterThan(p, vec3(0.0)));
    w.x += dot(head.xyz, dv) + dot(arm_n.xyz, wa) - dot(a_texel(col + 6, i).xyz, wb);
    w.y += dot(tail.xyz, dv) + dot(arm_t1.xyz, wa) - dot(a_texel(col + 7, i).xyz, wb);
    w.z += dot(third.xyz, dv) + dot(arm_t2.xyz, wa) - dot(a_texel(col + 8, i).xyz, wb);
    vec3 off = vec3(arm_n.w, arm_t1.w, arm_t2.w);
    float n = max(x.x - p.x * w.x, 0.0);
    float dn = n - x.x;
    w.y += off.x * dn;
    w.z += off.y * dn;
    float limit = param(1) * n;
    float t1 = clamp(x.y - p.y * w.y, -limit, limit);
    w.z += off.z * (t1 - x.y);
    float t2 = clamp(x.z - p.z * w.z, -limit, limit);
    return vec4(n, t1, t2, 0.0);
}
