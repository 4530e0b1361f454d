// I(i, j) = 1 where i == j, else 0.
vec4 kernel(ivec2 texel) {
    ivec4 row = ivec4(4 * texel.y) + ivec4(0, 1, 2, 3);
    return mask_padding(texel.y, mix(vec4(0.0), vec4(1.0), equal(row, ivec4(texel.x))));
}
