#version 300 es
// Prelude of every texla kernel, GLSL ES 3.00 version (WebGL2); the twin of prelude.wgsl.
// The backend builds the shader as
//   prelude.glsl + input.glsl per input + the kernel body + main.glsl,
// and the body defines `vec4 kernel(ivec2 texel)` (or `void kernel(ivec2 texel, out vec4 r[N])`
// for N render targets).
precision highp float;
precision highp int;
precision highp sampler2D;

// Shapes of the output (slot 0) and the inputs (slots 1..6): (rows, cols, width, height),
// and up to 8 scalar parameters of the run (scale factors, fill values...).
uniform ivec4 u_shapes[8];
uniform vec4 u_params[2];

int out_rows() { return u_shapes[0].x; }
int out_cols() { return u_shapes[0].y; }
float param(int i) { return u_params[i / 4][i % 4]; }

// NaN tests on the bits (GPU compilers may assume x == x): keep_nan(x, r) is x where x is NaN,
// else r; nan_or(s, m) likewise for one number.
bvec4 is_nan4(vec4 x) {
    return greaterThan(floatBitsToUint(x) & uvec4(0x7fffffffu), uvec4(0x7f800000u));
}
vec4 keep_nan(vec4 x, vec4 r) { return mix(r, x, is_nan4(x)); }
float nan_or(float s, float m) { return keep_nan(vec4(s), vec4(m)).x; }

// Zeroes the components of output texel row y that are padding (matrix row >= out_rows()), so
// that padding reads as zero whatever a kernel computes there.
vec4 mask_padding(int y, vec4 v) {
    ivec4 row = ivec4(4 * y) + ivec4(0, 1, 2, 3);
    return mix(vec4(0.0), v, lessThan(row, ivec4(out_rows())));
}
