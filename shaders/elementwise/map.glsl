// Element-wise kernel: out = EXPR(a, b, ...) for every element, in ONE pass (functions.glsl
// supplies the helpers EXPR calls).
vec4 kernel(ivec2 texel) {
    return mask_padding(texel.y, {expr});
}
