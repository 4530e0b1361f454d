// Last pass of a reduction: the four components of the one remaining texel, combined.
vec4 kernel(ivec2 texel) {
    vec4 v = a_texel(0, 0);
    return vec4({combine}, 0.0, 0.0, 0.0);
}
