// One pass of a float-float sum reduction (as reductions/reduce.*): output texel (x, y) is the
// float-float sum of the terms of input texels (4x..4x+3, 4y..4y+3) that exist, each lane on
// its own. The term ({term}) is the texel itself (a, b: hi and lo), or for the first pass of a
// dot product the float-float product of two texels (a, b and c, d). Outputs: hi and lo.
void kernel(ivec2 texel, out vec4 r[2]) {
    Ff acc = ff_splat(0.0, 0.0);
    for (int j = 0; j < 4; j++) {
        int y = 4 * texel.y + j;
        for (int i = 0; i < 4; i++) {
            int x = 4 * texel.x + i;
            if (x < a_width() && y < a_height()) {
                acc = ff_add(acc, {term});
            }
        }
    }
    r[0] = acc.hi;
    r[1] = acc.lo;
}
