// The contact system's layout; the twin of contact_layout.wgsl, which explains it: contact c at
// texel row c % H of segment c / H (H = the output's texel rows), w columns per contact.

int contact_height() {
    return u_shapes[0].w;
}

ivec2 contact_place(int c, int h) {
    return ivec2(c / h, c % h);
}

ivec2 contact_texel(int c) {
    return contact_place(c, contact_height());
}

int contact_column(int segment, int k, int w) {
    return w * segment + k;
}

vec3 body_texel(int k, int part) {
    if (k < 0) { return vec3(0.0); }
    ivec2 at = contact_place(k, b_height());
    return b_texel(2 * at.x + part, at.y).xyz;
}


// The accelerated solver's step for one contact (contact_layout.wgsl's twin explains it).
float advanced(float t) {
    return 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
}
void nesterov_step(vec3 z, vec4 y, vec3 x, float mu, out vec4 x_next, out vec4 y_next) {
    float n = max(z.x, 0.0);
    float limit = mu * n;
    vec3 next = vec3(n, clamp(z.yz, vec2(-limit), vec2(limit)));
    bool restart = dot(y.xyz - next, next - x) > 0.0;
    float t = restart ? 1.0 : advanced(y.w);
    float beta = (t - 1.0) / advanced(t);
    x_next = vec4(next, 0.0);
    y_next = vec4(next + beta * (next - x), t);
}
