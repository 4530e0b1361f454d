// Accelerated projected Jacobi for the contact LCP, EVERY iteration in one dispatch: the
// formulas of contact_nesterov.wgsl, block layout. Each workgroup owns one group of whole
// islands (contacts first .. end - 1, at most 1024: islands share no unknown, so nothing waits
// on another workgroup). Each of its 256 threads owns the group's contacts lid, lid + 256,
// lid + 512, lid + 768 and keeps their impulses in registers; the extrapolations y (and their
// counters) of the group live in workgroup memory, where a contact's neighbours read them. An
// iteration: every thread computes its contacts' new x and y from y, barrier, writes y,
// barrier. Nothing goes back to the CPU until the last iteration.
//
// Inputs: a = A as block rows (4K columns per contact), b = neighbour lists, c = x0, d = b of
// the LCP, e = P = 1 / diag(A), wrapped into segments as contact_layout.wgsl (put before this
// body) says; f = the groups, texel g = (first, end). Padding places of the wrap are in groups
// too (no neighbours: they stay zero). param(0) = the step s, param(1) = blocks per
// contact K, param(2) = iterations, param(3) = mu. Output: the impulses (fourth row 0),
// wrapped alike.

const PER_THREAD: u32 = 4u;
const MAX_CONTACTS: u32 = 1024u;

var<workgroup> ys: array<vec4<f32>, MAX_CONTACTS>;

fn advanced(t: f32) -> f32 {
    return 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
}

// Neighbour s's part of (A y)_row: block s of the row times y_j (contact j is place j - first
// of the group); zero where j < 0 (the list ends with -1, and slots past `count` are given -1).
// The column is clamped so that every fetch stays inside A.
fn term(me: vec2<i32>, count: i32, s: i32, j: i32, first: i32) -> vec3<f32> {
    let c = contact_column(me.x, min(4 * s, 4 * count - 4), 4 * count);
    let y = select(vec4<f32>(0.0), ys[max(j - first, 0)], j >= 0);
    let row = me.y;
    return (a_texel(c, row) * y.x + a_texel(c + 1, row) * y.y + a_texel(c + 2, row) * y.z).xyz;
}

@compute @workgroup_size(256)
fn cs_main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) group: vec3<u32>) {
    let range = vec2<i32>(f_texel(0, i32(group.x)).xy);
    let first = range.x;
    let contacts = u32(clamp(range.y - first, 0, i32(MAX_CONTACTS)));
    let step = param(0);
    let count = i32(param(1));
    let iterations = i32(param(2));
    let mu = param(3);
    var x: array<vec3<f32>, PER_THREAD>;
    var y_next: array<vec4<f32>, PER_THREAD>;
    for (var k = 0u; k < PER_THREAD; k++) {
        let i = lid + 256u * k;
        if (i < contacts) {
            let at = contact_texel(first + i32(i));
            let start = c_texel(at.x, at.y).xyz;
            x[k] = start;
            ys[i] = vec4<f32>(start, 0.0);
        }
    }
    workgroupBarrier();
    for (var it = 0; it < iterations; it++) {
        for (var k = 0u; k < PER_THREAD; k++) {
            let i = lid + 256u * k;
            if (i < contacts) {
                let me = contact_texel(first + i32(i));
                let row = me.y;
                var w = d_texel(me.x, row).xyz;
                // Four neighbours at a time, one texel of the list: their twelve fetches of A
                // are independent, so they overlap instead of waiting for each other.
                for (var s = 0; s < count; s += 4) {
                    let j = select(vec4<i32>(-1), vec4<i32>(b_texel(contact_column(me.x, s / 4, count / 4), row)), vec4<i32>(s) + vec4<i32>(0, 1, 2, 3) < vec4<i32>(count));
                    w += term(me, count, s, j.x, first) + term(me, count, s + 1, j.y, first) + term(me, count, s + 2, j.z, first) + term(me, count, s + 3, j.w, first);
                    if (j.w < 0) { break; }
                }
                let y = ys[i];
                let z = y.xyz + step * e_texel(me.x, row).xyz * w;
                let n = max(z.x, 0.0);
                let limit = mu * n;
                let next = vec3<f32>(n, clamp(z.yz, vec2<f32>(-limit), vec2<f32>(limit)));
                let restart = dot(y.xyz - next, next - x[k]) > 0.0;
                let t = select(advanced(y.w), 1.0, restart);
                let beta = (t - 1.0) / advanced(t);
                y_next[k] = vec4<f32>(next + beta * (next - x[k]), t);
                x[k] = next;
            }
        }
        workgroupBarrier();
        for (var k = 0u; k < PER_THREAD; k++) {
            let i = lid + 256u * k;
            if (i < contacts) {
                ys[i] = y_next[k];
            }
        }
        workgroupBarrier();
    }
    for (var k = 0u; k < PER_THREAD; k++) {
        let i = lid + 256u * k;
        if (i < contacts) {
            textureStore(out_tex, contact_texel(first + i32(i)), vec4<f32>(x[k], 0.0));
        }
    }
}
