
out vec4 out_texel;

// gl_FragCoord.xy is the centre (x + 0.5, y + 0.5) of the output texel this fragment writes.
void main() {
    out_texel = kernel(ivec2(gl_FragCoord.xy));
}
