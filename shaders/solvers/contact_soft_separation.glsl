// The soft step's separations; the twin of contact_soft_separation.wgsl, which explains it.

vec4 kernel(ivec2 texel) {
    int i = texel.y;
    int col = contact_column(texel.x, 0, 9);
    vec4 head = a_texel(col, i);
    int ka = int(head.w) - 1;
    int kb = int(a_texel(col + 1, i).w) - 1;
    float sides = float(ka >= 0) - float(kb >= 0);
    float shifted = dot(head.xyz, body_texel(ka, 0) - body_texel(kb, 0))
        + dot(a_texel(col + 3, i).xyz, body_texel(ka, 1))
        - dot(a_texel(col + 6, i).xyz, body_texel(kb, 1));
    float s = a_texel(col + 6, i).w + param(0) * d_texel(texel.x, i).x + param(1) * sides * head.y + shifted;
    return vec4(c_texel(texel.x, i).xyz, s);
}
