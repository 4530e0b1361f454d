
// Input `{name}` (slot {slot}).
@group(0) @binding({slot}) var {name}_tex: texture_2d<f32>;
fn {name}_rows() -> i32 { return shapes.s[{slot}].x; }
fn {name}_cols() -> i32 { return shapes.s[{slot}].y; }
fn {name}_width() -> i32 { return shapes.s[{slot}].z; }
fn {name}_height() -> i32 { return shapes.s[{slot}].w; }
// Texel (x, y) of `{name}`: rows 4y .. 4y+3 of column x. x and y must lie inside the texture.
fn {name}_texel(x: i32, y: i32) -> vec4<f32> { return textureLoad({name}_tex, vec2<i32>(x, y), 0); }
