
layout(location = 0) out vec4 out_a;
layout(location = 1) out vec4 out_b;

// Two outputs: the same texel of two render targets, written in one pass.
void main() {
    Out2 o = kernel(ivec2(gl_FragCoord.xy));
    out_a = o.a;
    out_b = o.b;
}
