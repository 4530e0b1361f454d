// One iteration of accelerated projected Jacobi for the contact LCP; the twin of
// contact_nesterov.wgsl, which explains it.

vec4 extrapolated(int j) {
    vec4 x = c_texel(0, j);
    float t = 0.5 * (1.0 + sqrt(1.0 + 4.0 * x.w * x.w));
    float beta = (x.w - 1.0) / t;
    return vec4(x.xyz + beta * (x.xyz - d_texel(0, j).xyz), t);
}

vec4 kernel(ivec2 texel) {
    int i = texel.y;
    int count = int(param(1));
    bool dense = param(2) > 0.5;
    vec3 w = e_texel(0, i).xyz;
    for (int s = 0; s < count; s++) {
        int j = s;
        if (!dense) {
            vec4 list = b_texel(s / 4, i);
            j = int(list[s % 4]);
            if (j < 0) { break; }
        }
        vec4 yj = extrapolated(j);
        w += (a_texel(4 * s, i) * yj.x + a_texel(4 * s + 1, i) * yj.y + a_texel(4 * s + 2, i) * yj.z).xyz;
    }
    vec4 y = extrapolated(i);
    vec3 z = y.xyz + param(0) * f_texel(0, i).xyz * w;
    float n = max(z.x, 0.0);
    float limit = param(3) * n;
    vec3 next = vec3(n, clamp(z.yz, vec2(-limit), vec2(limit)));
    bool restart = dot(y.xyz - next, next - c_texel(0, i).xyz) > 0.0;
    return vec4(next, restart ? 1.0 : y.w);
}
