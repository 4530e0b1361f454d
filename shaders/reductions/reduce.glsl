// One pass of a sum reduction: output texel (x, y) is the sum of the terms of input texels
// (4x..4x+3, 4y..4y+3) that exist, so each pass shrinks the texture 16-fold. The term is the
// texel itself, or a_texel * b_texel for the first pass of a dot product (the products never
// take a texture of their own). The four components stay apart until `sum_components`.
// With `max` instead of `+` the same passes find the largest |element| (NaN wins).
vec4 kernel(ivec2 texel) {
    vec4 acc = vec4(0.0);
    for (int j = 0; j < 4; j++) {
        int y = 4 * texel.y + j;
        for (int i = 0; i < 4; i++) {
            int x = 4 * texel.x + i;
            if (x < a_width() && y < a_height()) {
                acc = {combine};
            }
        }
    }
    return acc;
}
