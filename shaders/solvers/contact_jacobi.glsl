// One projected Jacobi iteration of the contact LCP; the twin of contact_jacobi.wgsl.
vec4 kernel(ivec2 texel) {
    int i = texel.y;
    int count = int(param(1));
    bool dense = param(2) > 0.5;
    vec4 w = d_texel(texel.x, i);
    for (int s = 0; s < count; s++) {
        int j = s;
        if (!dense) {
            vec4 list = b_texel(contact_column(texel.x, s / 4, count / 4), i);
            j = int(list[s % 4]);
            if (j < 0) { break; }
        }
        ivec2 at = contact_texel(j);
        vec4 xj = c_texel(at.x, at.y);
        int col = contact_column(texel.x, 4 * s, 4 * count);
        w += a_texel(col, i) * xj.x + a_texel(col + 1, i) * xj.y + a_texel(col + 2, i) * xj.z;
    }
    vec4 y = c_texel(texel.x, i) + param(0) * e_texel(texel.x, i) * w;
    float n = max(y.x, 0.0);
    float limit = f_texel(texel.x, i).x * n;
    return vec4(n, clamp(y.yz, vec2(-limit), vec2(limit)), 0.0);
}
