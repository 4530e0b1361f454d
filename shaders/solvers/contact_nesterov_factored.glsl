// The factored iteration's second pass: the accelerated step from J and the bodies'
// velocities; the twin of contact_nesterov_factored.wgsl, which explains it. Two render
// targets: x and y.

void kernel(ivec2 texel, out vec4 r[2]) {
    int i = texel.y;
    int col = contact_column(texel.x, 0, 9);
    vec4 head = a_texel(col, i);
    vec4 tail = a_texel(col + 1, i);
    int ka = int(head.w) - 1;
    int kb = int(tail.w) - 1;
    vec3 dv = body_texel(ka, 0) - body_texel(kb, 0);
    vec3 wa = body_texel(ka, 1);
    vec3 wb = body_texel(kb, 1);
    vec4 y = c_texel(texel.x, i);
    vec3 x = d_texel(texel.x, i).xyz;
    vec3 p = f_texel(texel.x, i).xyz;
    float regularisation = param(2) / (1.0 + param(2));
    vec3 w = e_texel(texel.x, i).xyz + regularisation * mix(vec3(0.0), y.xyz / p, greaterThan(p, vec3(0.0)));
    w.x += dot(head.xyz, dv) + dot(a_texel(col + 3, i).xyz, wa) - dot(a_texel(col + 6, i).xyz, wb);
    w.y += dot(tail.xyz, dv) + dot(a_texel(col + 4, i).xyz, wa) - dot(a_texel(col + 7, i).xyz, wb);
    w.z += dot(a_texel(col + 2, i).xyz, dv) + dot(a_texel(col + 5, i).xyz, wa) - dot(a_texel(col + 8, i).xyz, wb);
    vec3 z = y.xyz + param(0) * p * w;
    nesterov_step(z, y, x, param(1), r[0], r[1]);
}
