// Two element-wise expressions over the same inputs, written to two outputs in ONE pass.
Out2 kernel(ivec2 texel) {
    return Out2(mask_padding(texel.y, {expr}), mask_padding(texel.y, {expr2}));
}
