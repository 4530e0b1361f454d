#version 300 es
// Prelude of every texla kernel, GLSL ES 3.00 version (WebGL2); the twin of prelude.wgsl.
// The backend builds the shader as
//   prelude.glsl + input.glsl per input + the kernel body + main.glsl,
// and the body defines `vec4 kernel(ivec2 texel)`.
precision highp float;
precision highp int;
precision highp sampler2D;

// Shapes of the output (slot 0) and the inputs (slots 1..3): (rows, cols, width, height).
uniform ivec4 u_shapes[4];

int out_rows() { return u_shapes[0].x; }
int out_cols() { return u_shapes[0].y; }
