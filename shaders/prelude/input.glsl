
// Input `{name}` (slot {slot}).
uniform sampler2D {name}_tex;
int {name}_rows() { return u_shapes[{slot}].x; }
int {name}_cols() { return u_shapes[{slot}].y; }
int {name}_width() { return u_shapes[{slot}].z; }
int {name}_height() { return u_shapes[{slot}].w; }
// Texel (x, y) of `{name}`: rows 4y .. 4y+3 of column x. x and y must lie inside the texture.
vec4 {name}_texel(int x, int y) { return texelFetch({name}_tex, ivec2(x, y), 0); }
