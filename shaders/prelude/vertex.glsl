#version 300 es
// One triangle that covers the whole render target: (-1,-1), (3,-1), (-1,3).
void main() {
    vec2 uv = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
