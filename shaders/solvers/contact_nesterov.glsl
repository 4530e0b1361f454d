// One iteration of accelerated projected Jacobi for the contact LCP; the twin of
// contact_nesterov.wgsl, which explains it. Two render targets: x and y.

float advanced(float t) {
    return 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
}

void kernel(ivec2 texel, out vec4 r[2]) {
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
        vec4 yj = c_texel(0, j);
        w += (a_texel(4 * s, i) * yj.x + a_texel(4 * s + 1, i) * yj.y + a_texel(4 * s + 2, i) * yj.z).xyz;
    }
    vec4 y = c_texel(0, i);
    vec3 x = d_texel(0, i).xyz;
    vec3 z = y.xyz + param(0) * f_texel(0, i).xyz * w;
    float n = max(z.x, 0.0);
    float limit = param(3) * n;
    vec3 next = vec3(n, clamp(z.yz, vec2(-limit), vec2(limit)));
    bool restart = dot(y.xyz - next, next - x) > 0.0;
    float t = restart ? 1.0 : advanced(y.w);
    float beta = (t - 1.0) / advanced(t);
    r[0] = vec4(next, 0.0);
    r[1] = vec4(next + beta * (next - x), t);
}
