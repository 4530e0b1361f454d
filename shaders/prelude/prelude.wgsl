// Prelude of every texla kernel, WGSL version.
//
// A kernel is a fragment shader that writes one texel of its output texture: four consecutive
// matrix rows of one column (see src/layout.rs). The backend builds the module as
//   prelude.wgsl + input.wgsl once per input (its name and slot filled in) + the kernel body,
// and the body defines `fn kernel(texel: vec2<i32>) -> vec4<f32>` (or `-> array<vec4<f32>, N>`
// for N render targets):
// texel.x is the output column, texel.y the output texel row (matrix rows 4*texel.y .. +3).
// main.wgsl or main_multi.wgsl closes the module with the fragment entry point.

// Shapes of the output (slot 0) and the inputs (slots 1..6): (rows, cols, width, height),
// and up to 8 scalar parameters of the run (scale factors, fill values...).
struct Uniforms {
    s: array<vec4<i32>, 8>,
    p: array<vec4<f32>, 2>,
}

@group(0) @binding(0) var<uniform> shapes: Uniforms;

fn out_rows() -> i32 { return shapes.s[0].x; }
fn out_cols() -> i32 { return shapes.s[0].y; }
fn param(i: i32) -> f32 { return shapes.p[i / 4][i % 4]; }

// NaN tests on the bits (GPU compilers may assume x == x): keep_nan(x, r) is x where x is NaN,
// else r; nan_or(s, m) likewise for one number.
fn is_nan4(x: vec4<f32>) -> vec4<bool> {
    return (bitcast<vec4<u32>>(x) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u);
}
fn keep_nan(x: vec4<f32>, r: vec4<f32>) -> vec4<f32> { return select(r, x, is_nan4(x)); }
fn nan_or(s: f32, m: f32) -> f32 { return keep_nan(vec4<f32>(s), vec4<f32>(m)).x; }

// Zeroes the components of output texel row y that are padding (matrix row >= out_rows()), so
// that padding reads as zero whatever a kernel computes there.
fn mask_padding(y: i32, v: vec4<f32>) -> vec4<f32> {
    let row = vec4<i32>(4 * y) + vec4<i32>(0, 1, 2, 3);
    return select(vec4<f32>(0.0), v, row < vec4<i32>(out_rows()));
}

// One triangle that covers the whole render target: (-1,-1), (3,-1), (-1,3).
@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}
