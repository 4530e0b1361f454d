// Two element-wise expressions over the same inputs, written to two outputs in ONE pass.
void kernel(ivec2 texel, out vec4 r[2]) {
    r[0] = mask_padding(texel.y, {expr});
    r[1] = mask_padding(texel.y, {expr2});
}
