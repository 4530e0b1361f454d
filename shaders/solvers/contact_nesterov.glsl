// One iteration of accelerated projected Jacobi for the contact LCP; the twin of
// contact_nesterov.wgsl, which explains it. Two render targets: x and y.

vec3 term(ivec2 me, int count, int s, int j) {
    int col = contact_column(me.x, min(4 * s, 4 * count - 4), 4 * count);
    ivec2 at = contact_texel(max(j, 0));
    vec4 yj = mix(vec4(0.0), c_texel(at.x, at.y), bvec4(j >= 0));
    int i = me.y;
    return (a_texel(col, i) * yj.x + a_texel(col + 1, i) * yj.y + a_texel(col + 2, i) * yj.z).xyz;
}

void kernel(ivec2 texel, out vec4 r[2]) {
    int i = texel.y;
    int count = int(param(1));
    bool dense = param(2) > 0.5;
    vec3 w = e_texel(texel.x, i).xyz;
    for (int s = 0; s < count; s += 4) {
        ivec4 slot = ivec4(s) + ivec4(0, 1, 2, 3);
        ivec4 j = slot;
        if (!dense) {
            j = ivec4(b_texel(contact_column(texel.x, s / 4, count / 4), i));
        }
        ivec4 listed = ivec4(lessThan(slot, ivec4(count)));  // GLSL ES 3.00 has no integer mix
        j = j * listed + listed - 1;
        w += term(texel, count, s, j.x) + term(texel, count, s + 1, j.y) + term(texel, count, s + 2, j.z) + term(texel, count, s + 3, j.w);
        if (j.w < 0) { break; }
    }
    vec4 y = c_texel(texel.x, i);
    vec3 x = d_texel(texel.x, i).xyz;
    vec3 z = y.xyz + param(0) * f_texel(texel.x, i).xyz * w;
    nesterov_step(z, y, x, param(3), r[0], r[1]);
}
