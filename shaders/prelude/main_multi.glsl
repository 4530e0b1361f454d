
// Several outputs: one texel of each of {count} render targets, written in one pass. The kernel
// fills an array; element i goes to render target i.
{outs}

void main() {
    vec4 r[{count}];
    kernel(ivec2(gl_FragCoord.xy), r);
{assign}
}
