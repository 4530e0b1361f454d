// The contact system's layout (src/solver/contact_wrap.rs has the diagram; this is its one
// rule on the GPU, put before every contact kernel): contact c lies at texel row c % H of
// segment c / H, where H is the texel rows of the output (the impulses, one texel column per
// segment); a matrix with w texel columns per contact keeps contact c's in columns
// w (c / H) .. w (c / H) + w - 1 of that row. A kernel's own contact is at its output texel:
// (segment texel.x, row texel.y).

// H: contacts per segment.
fn contact_height() -> i32 {
    return shapes.s[0].w;
}

// Where contact c lies: (segment, texel row); in a one-column-per-contact texture (x, b,
// 1 / diag(A), mu) that is its texel.
fn contact_texel(c: i32) -> vec2<i32> {
    return contact_place(c, contact_height());
}

// Where item c of a wrap of h rows per segment lies: (segment, texel row). The contacts' wrap
// (h = H) from a kernel whose output is not contact-shaped, or the bodies' own wrap.
fn contact_place(c: i32, h: i32) -> vec2<i32> {
    return vec2<i32>(c / h, c % h);
}

// The texel column of column k of a contact in `segment`, in a matrix of w columns per contact.
fn contact_column(segment: i32, k: i32, w: i32) -> i32 {
    return w * segment + k;
}

// Texel `part` (0 linear, 1 angular) of body slot k in the bodies' wrap of input b
// (contact_velocities' output); zero for no body (k < 0, the ground).
fn body_texel(k: i32, part: i32) -> vec3<f32> {
    if (k < 0) { return vec3<f32>(0.0); }
    let at = contact_place(k, b_height());
    return b_texel(2 * at.x + part, at.y).xyz;
}


// The accelerated solver's step for one contact, shared by its kernels (contact_nesterov.wgsl
// explains it): z = y + step D (A y + b) projected (normal >= 0, friction within mu times it)
// into the new impulses; the counter of y restarts where the step turned back; the new
// extrapolation from the new and the last impulses x. Returns (new x, 0) and (new y, counter).
fn advanced(t: f32) -> f32 {
    return 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
}
fn nesterov_step(z: vec3<f32>, y: vec4<f32>, x: vec3<f32>, mu: f32) -> array<vec4<f32>, 2> {
    let n = max(z.x, 0.0);
    let limit = mu * n;
    let next = vec3<f32>(n, clamp(z.yz, vec2<f32>(-limit), vec2<f32>(limit)));
    let restart = dot(y.xyz - next, next - x) > 0.0;
    let t = select(advanced(y.w), 1.0, restart);
    let beta = (t - 1.0) / advanced(t);
    return array<vec4<f32>, 2>(vec4<f32>(next, 0.0), vec4<f32>(next + beta * (next - x), t));
}
