// The factored iteration's first pass: the bodies' velocities v = M^-1 J^T y; the twin of
// contact_velocities.wgsl, which explains it.

vec4 kernel(ivec2 texel) {
    int width = int(param(0));
    int base = width * (texel.x / 2);
    bool angular = texel.x % 2 == 1;
    int row = texel.y;
    vec3 sum = vec3(0.0);
    for (int q = 3; q < width; q++) {
        ivec4 list = ivec4(b_texel(base + q, row));
        for (int s = 0; s < 4; s++) {
            int entry = list[s];
            if (entry < 0) { break; }
            int side = entry % 2;
            ivec2 at = contact_place(entry / 2, c_height());
            vec3 y = c_texel(at.x, at.y).xyz;
            int k = angular ? 3 + 3 * side : 0;
            int col = contact_column(at.x, k, 9);
            float towards = 1.0 - 2.0 * float(side);
            sum += towards * (y.x * a_texel(col, at.y).xyz + y.y * a_texel(col + 1, at.y).xyz + y.z * a_texel(col + 2, at.y).xyz);
        }
        if (list.w < 0) { break; }
    }
    vec4 i0 = b_texel(base, row);
    if (!angular) {
        return vec4(i0.w * sum, 0.0);
    }
    vec3 i1 = b_texel(base + 1, row).xyz;
    vec3 i2 = b_texel(base + 2, row).xyz;
    return vec4(dot(i0.xyz, sum), dot(i1, sum), dot(i2, sum), 0.0);
}
