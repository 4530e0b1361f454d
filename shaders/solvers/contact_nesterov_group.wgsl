// Accelerated projected Jacobi for the contact LCP, EVERY iteration in one dispatch: the
// formulas of contact_nesterov.wgsl, with the matrix as its factors, A = J M^-1 J^T + R
// (src/solver/contact_factors.rs has the layout). Each workgroup owns one group of whole
// islands: contacts first .. end - 1 (at most 1024) and their bodies (at most 170), or one
// island past that, its state in storage (contact_group.wgsl). Islands share no body, so
// nothing waits on another workgroup, and nothing goes back to the CPU until the last
// iteration. An iteration is two gathers, each thread over what it owns:
//
//   bodies:   v_k = M_k^-1 sum over k's contacts c of s (J_c,k)^T y_c   (into workgroup memory)
//   barrier
//   contacts: w = J_c,a v_a - J_c,b v_b + R y_c + b_c; z = y + s P w; project; momentum; the
//             new y into workgroup memory (the thread keeps x, y and the counter in registers)
//   barrier
//
// A thread owns contacts lid, lid + THREADS, ... and bodies lid, lid + THREADS, ... of its
// group; THREADS (256 on a hardware GPU) is set per adapter (src/kernels/lcp.rs). Against A's block
// rows (24 blocks of 3 x 3 per contact on the wall) this fetches 9 texels per contact and about
// 6 per body's contact, and uploads a tenth of the data.
//
// Inputs: a = J (9 texel columns per contact), c = x0, d = b of the LCP, e = P = 1 / diag(A),
// wrapped into segments as contact_layout.wgsl (put before this body) says; b = the bodies
// (param(1) texel columns each: the inverse inertia's rows, inverse mass in texel 0's w, then
// the contacts as 2c + side), body slot k at texel row k % H_b of segment k / H_b; f = the
// groups, texel 0 of row g = (first contact, end, first body, end), texel 1 as
// contact_group.wgsl says. Padding places of the wrap are in groups too (no bodies: they stay
// zero). param(0) = the step s, param(2) = iterations, param(3) = mu, param(4) = R's factor
// (A's own diagonal is 1 + R times J M^-1 J^T's).
// Output: the impulses (fourth row 0), wrapped as x0.

const THREADS: u32 = {THREADS}u;
const MAX_CONTACTS: u32 = 1024u;
const MAX_BODIES: u32 = 170u;
const PER_THREAD: u32 = MAX_CONTACTS / THREADS;
// A wide group's state in storage: each contact's y, x and counter, each body's v.
const WIDE: bool = {WIDE};
const CONTACT_WORDS: i32 = 7;
const BODY_WORDS: i32 = 6;
{SCRATCH}

// Where the GPU is emulated by a CPU (SwiftShader), a thread keeps what it reads every
// iteration in private memory, which is plain memory there, rather than fetch it again
// through the emulated texture unit: the 11 texels of each of its contacts' step (J's 9,
// 1 / diag(A), b; CACHED = PER_THREAD), and for each of its bodies the inverse mass and
// inertia (3 texels) and, for each contact side in its list, the entry and J's 6 texels the
// body's gather reads (at most KEPT_SIDES in all; a body whose sides do not fit reads its
// list as a hardware GPU does). A hardware GPU would spill all that out of its registers:
// CACHED = 1, and nothing is kept.
const CACHED: u32 = {CACHED}u;
const KEPT_SIDES: u32 = 4u * CACHED;
const BODY_SLOTS: u32 = (MAX_BODIES + THREADS - 1u) / THREADS;
// A body whose sides are not kept.
const NOT_KEPT: u32 = 0xffffffffu;
var<private> cache: array<vec4<f32>, 11u * CACHED>;
var<private> side_entry: array<i32, KEPT_SIDES>;
var<private> side_texels: array<vec4<f32>, 6u * KEPT_SIDES>;
var<private> body_texels: array<vec4<f32>, 3u * BODY_SLOTS>;
// Per body of the thread: (first kept side, count), count NOT_KEPT where they did not fit.
var<private> body_sides: array<vec2<u32>, BODY_SLOTS>;

// Texel `slot` of the step of the thread's k-th contact, at `me`: 0..8 its row of J, 9
// 1 / diag(A), 10 b.
fn step_texel(k: u32, me: vec2<i32>, slot: i32) -> vec4<f32> {
    if (CACHED > 1u && !is_wide()) {
        return cache[11u * k + u32(slot)];
    }
    return fetch_step_texel(me, slot);
}

fn fetch_step_texel(me: vec2<i32>, slot: i32) -> vec4<f32> {
    if (slot < 9) {
        return a_texel(contact_column(me.x, slot, 9), me.y);
    }
    if (slot == 9) {
        return e_texel(me.x, me.y);
    }
    return d_texel(me.x, me.y);
}

// y of the group's contacts, 3 floats each, and v of its bodies, (linear, angular): 16368 bytes.
var<workgroup> ys: array<f32, 3072>;
var<workgroup> vs: array<f32, 1020>;

// Texel k of contact c's row of J.
fn jacobian(c: vec2<i32>, k: i32) -> vec3<f32> {
    return a_texel(contact_column(c.x, k, 9), c.y).xyz;
}

// y of contact i of the group, as the other threads see it.
fn y_of(i: i32) -> vec3<f32> {
    if (is_wide()) { return stored3(contact_word(u32(i), 0)); }
    return vec3<f32>(ys[3 * i], ys[3 * i + 1], ys[3 * i + 2]);
}

fn set_y(i: u32, y: vec3<f32>) {
    if (is_wide()) {
        store3(contact_word(i, 0), y);
        return;
    }
    ys[3u * i] = y.x;
    ys[3u * i + 1u] = y.y;
    ys[3u * i + 2u] = y.z;
}

// v of body slot k of the group (k < 0: the ground, at rest).
fn v_linear(k: i32) -> vec3<f32> {
    if (k < 0) { return vec3<f32>(0.0); }
    if (is_wide()) { return stored3(body_word(k, 0)); }
    return vec3<f32>(vs[6 * k], vs[6 * k + 1], vs[6 * k + 2]);
}

fn v_angular(k: i32) -> vec3<f32> {
    if (k < 0) { return vec3<f32>(0.0); }
    if (is_wide()) { return stored3(body_word(k, 3)); }
    return vec3<f32>(vs[6 * k + 3], vs[6 * k + 4], vs[6 * k + 5]);
}

fn set_v(k: u32, linear: vec3<f32>, angular: vec3<f32>) {
    if (is_wide()) {
        store3(body_word(i32(k), 0), linear);
        store3(body_word(i32(k), 3), angular);
        return;
    }
    for (var r = 0u; r < 3u; r++) {
        vs[6u * k + r] = linear[r];
        vs[6u * k + 3u + r] = angular[r];
    }
}

// A wide group's contact i: y (words 0-2, which set_y writes), x (3-5), the counter (6).
const X: i32 = 3;
const COUNTER: i32 = 6;

@compute @workgroup_size(THREADS)
fn cs_main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) group: vec3<u32>) {
    let range = group_range(i32(group.x));
    let wide = is_wide();
    let first = range.x;
    let contacts = u32(max(range.y - first, 0));
    let first_body = range.z;
    let bodies = u32(max(range.w - first_body, 0));
    let per = per_thread(contacts);
    let held = extent(contacts, bodies);
    // The thread keeps its contacts' texels where it is emulated (CACHED), except in a wide group.
    let cached = CACHED > 1u && !wide;
    // The thread's contacts within a workgroup's limits: x, y and the counter in registers
    // (a wide group's are in storage).
    var x: array<vec3<f32>, PER_THREAD>;
    var y: array<vec3<f32>, PER_THREAD>;
    var t: array<f32, PER_THREAD>;
    let step = param(0);
    let width = i32(param(1));
    let iterations = i32(param(2));
    let mu = param(3);
    let regularisation = param(4) / (1.0 + param(4));
    for (var k = 0u; k < per; k++) {
        let i = lid + THREADS * k;
        if (i < held.x) {
            let at = contact_texel(first + i32(i));
            let x0 = c_texel(at.x, at.y).xyz;
            set_y(i, x0);
            if (wide) {
                store3(contact_word(i, X), x0);
                scratch[contact_word(i, COUNTER)] = 0.0;
            } else {
                x[k] = x0;
                y[k] = x0;
                t[k] = 0.0;
            }
            if (cached) {
                for (var slot = 0; slot < 11; slot++) {
                    cache[11u * k + u32(slot)] = fetch_step_texel(at, slot);
                }
            }
        }
    }
    if (cached) {
        var kept = 0u;
        for (var slot = lid; slot < held.y; slot += THREADS) {
            let j = slot / THREADS;
            let body = first_body + i32(slot);
            let at = vec2<i32>(body / b_height(), body % b_height());
            for (var r = 0; r < 3; r++) {
                body_texels[3u * j + u32(r)] = b_texel(width * at.x + r, at.y);
            }
            let start = kept;
            var whole = true;
            var ended = false;
            for (var q = 3; q < width && whole && !ended; q++) {
                let list = vec4<i32>(b_texel(width * at.x + q, at.y));
                for (var s = 0; s < 4; s++) {
                    let entry = list[s];
                    if (entry < 0) { ended = true; break; }
                    if (kept == KEPT_SIDES) { whole = false; break; }
                    let place = contact_texel(entry / 2);
                    let arm = 3 + 3 * (entry % 2);
                    side_entry[kept] = entry;
                    for (var r = 0; r < 3; r++) {
                        side_texels[6u * kept + u32(r)] = a_texel(contact_column(place.x, r, 9), place.y);
                        side_texels[6u * kept + 3u + u32(r)] = a_texel(contact_column(place.x, arm + r, 9), place.y);
                    }
                    kept++;
                }
            }
            body_sides[j] = select(vec2<u32>(0u, NOT_KEPT), vec2<u32>(start, kept - start), whole);
            if (!whole) { kept = KEPT_SIDES; }
        }
    }
    group_barrier();
    for (var it = 0; it < iterations; it++) {
        for (var slot = lid; slot < held.y; slot += THREADS) {
            let body = first_body + i32(slot);
            let at = vec2<i32>(body / b_height(), body % b_height());
            var linear = vec3<f32>(0.0);
            var angular = vec3<f32>(0.0);
            // The inverse mass (texel 0's w) and the inverse inertia's rows.
            var i0: vec4<f32>;
            var i1: vec3<f32>;
            var i2: vec3<f32>;
            let j = slot / THREADS;
            if (cached && body_sides[j].y != NOT_KEPT) {
                let kept = body_sides[j];
                for (var n = kept.x; n < kept.x + kept.y; n++) {
                    let entry = side_entry[n];
                    let yc = y_of(entry / 2 - first);
                    let sign = 1.0 - 2.0 * f32(entry % 2);
                    let e = 6u * n;
                    linear += sign * (yc.x * side_texels[e].xyz + yc.y * side_texels[e + 1u].xyz + yc.z * side_texels[e + 2u].xyz);
                    angular += sign * (yc.x * side_texels[e + 3u].xyz + yc.y * side_texels[e + 4u].xyz + yc.z * side_texels[e + 5u].xyz);
                }
                i0 = body_texels[3u * j];
                i1 = body_texels[3u * j + 1u].xyz;
                i2 = body_texels[3u * j + 2u].xyz;
            } else {
                for (var q = 3; q < width; q++) {
                    let list = vec4<i32>(b_texel(width * at.x + q, at.y));
                    for (var s = 0; s < 4; s++) {
                        let entry = list[s];
                        if (entry < 0) { break; }
                        let c = entry / 2;
                        let side = entry % 2;
                        let place = contact_texel(c);
                        let yc = y_of(c - first);
                        let sign = 1.0 - 2.0 * f32(side);
                        linear += sign * (yc.x * jacobian(place, 0) + yc.y * jacobian(place, 1) + yc.z * jacobian(place, 2));
                        let arm = 3 + 3 * side;
                        angular += sign * (yc.x * jacobian(place, arm) + yc.y * jacobian(place, arm + 1) + yc.z * jacobian(place, arm + 2));
                    }
                    if (list.w < 0) { break; }
                }
                i0 = b_texel(width * at.x, at.y);
                i1 = b_texel(width * at.x + 1, at.y).xyz;
                i2 = b_texel(width * at.x + 2, at.y).xyz;
            }
            set_v(slot, i0.w * linear, vec3<f32>(dot(i0.xyz, angular), dot(i1, angular), dot(i2, angular)));
        }
        group_barrier();
        for (var k = 0u; k < per; k++) {
            let i = lid + THREADS * k;
            if (i < held.x) {
                let me = contact_texel(first + i32(i));
                let head = step_texel(k, me, 0);
                let tail = step_texel(k, me, 1);
                let ka = i32(head.w) - 1 - first_body;
                let kb = i32(tail.w) - 1 - first_body;
                let dv = v_linear(ka) - v_linear(kb);
                let wa = v_angular(ka);
                let wb = v_angular(kb);
                let e = array<vec3<f32>, 3>(head.xyz, tail.xyz, step_texel(k, me, 2).xyz);
                let p = step_texel(k, me, 9).xyz;
                var xk: vec3<f32>;
                var yt: vec4<f32>;
                if (wide) {
                    xk = stored3(contact_word(i, X));
                    yt = vec4<f32>(y_of(i32(i)), scratch[contact_word(i, COUNTER)]);
                } else {
                    xk = x[k];
                    yt = vec4<f32>(y[k], t[k]);
                }
                let yk = yt.xyz;
                var w = step_texel(k, me, 10).xyz + regularisation * select(vec3<f32>(0.0), yk / p, p > vec3<f32>(0.0));
                for (var d = 0; d < 3; d++) {
                    w[d] += dot(e[d], dv) + dot(step_texel(k, me, 3 + d).xyz, wa) - dot(step_texel(k, me, 6 + d).xyz, wb);
                }
                let z = yk + step * p * w;
                let stepped = nesterov_step(z, yt, xk, mu);
                set_y(i, stepped[1].xyz);
                if (wide) {
                    store3(contact_word(i, X), stepped[0].xyz);
                    scratch[contact_word(i, COUNTER)] = stepped[1].w;
                } else {
                    x[k] = stepped[0].xyz;
                    y[k] = stepped[1].xyz;
                    t[k] = stepped[1].w;
                }
            }
        }
        group_barrier();
    }
    for (var k = 0u; k < per; k++) {
        let i = lid + THREADS * k;
        if (i < held.x) {
            var xk: vec3<f32>;
            if (wide) { xk = stored3(contact_word(i, X)); } else { xk = x[k]; }
            textureStore(out_tex, contact_texel(first + i32(i)), vec4<f32>(xk, 0.0));
        }
    }
}
