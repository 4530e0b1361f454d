// One projected Jacobi iteration of the contact LCP; the twin of contact_jacobi.wgsl.
vec4 kernel(ivec2 texel) {
    int i = texel.y;
    int count = int(param(1));
    bool dense = param(2) > 0.5;
    vec4 w = d_texel(0, i);
    for (int s = 0; s < count; s++) {
        int j = s;
        if (!dense) {
            vec4 list = b_texel(s / 4, i);
            j = int(list[s % 4]);
            if (j < 0) { break; }
        }
        vec4 xj = c_texel(0, j);
        w += a_texel(4 * s, i) * xj.x + a_texel(4 * s + 1, i) * xj.y + a_texel(4 * s + 2, i) * xj.z;
    }
    vec4 y = c_texel(0, i) + param(0) * e_texel(0, i) * w;
    float n = max(y.x, 0.0);
    float limit = f_texel(0, i).x * n;
    return vec4(n, clamp(y.yz, vec2(-limit), vec2(limit)), 0.0);
}
