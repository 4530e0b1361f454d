// The soft step (src/solver/contact_soft.rs; float64 twin ContactLcp::solve_soft) with EVERY
// substep in one compute dispatch, a workgroup per group of whole islands as in
// contact_nesterov_group.wgsl (its inputs; texel 6 of J carries the contact's separation at the
// frame's start in w). A thread owns contacts lid, lid + THREADS, ... of its group and keeps
// their T (the finished substeps' impulses), S (T plus this substep's), P (the impulses behind
// the displacement), separation, colour and bodies in registers; workgroup memory holds each
// body's v(S), v(T) and displacement M^-1 J^T P. A wide group keeps all that in storage
// (contact_group.wgsl), and reads each contact's colour and bodies from J when it needs them.
// The contacts of one colour share no body, so a thread that steps one adds the change to both
// bodies' velocities itself: a colour costs one barrier, where the passes gather every body's
// velocity again. Per substep, as the passes:
//
//   separations   s = s0 + start b_n + early g h (a - b) e_n.y + J_n displacement
//   soft sweeps   SWEEPS times, per colour: the normal rows with the spring; barrier
//   move          P += h S, displacement += h v(S); barrier
//   separations   again
//   rigid sweep   per colour: the normal and friction rows; barrier
//   next          T = S, S = 2 S - T (and the same for the bodies' velocities); barrier
//
// params: (0) texel columns per body, (1) colours, (2) mu, (3) h, (4) g h, (5) the spring's
// rate, (6) its mass factor, (7) its impulse factor. Output: S and P side by side, each wrapped
// as x0: S in the first half of the texel columns, P in the second.

const THREADS: u32 = {THREADS}u;
const MAX_CONTACTS: u32 = 1024u;
const MAX_BODIES: u32 = 170u;
const PER_THREAD: u32 = MAX_CONTACTS / THREADS;
const SUBSTEPS: i32 = {SUBSTEPS};
const SWEEPS: i32 = {SWEEPS};
const MAX_CORRECTION: f32 = {MAX_CORRECTION};
// A wide group's state in storage: each contact's T, S, P and separation, each body's v(S),
// v(T) and displacement.
const WIDE: bool = {WIDE};
const CONTACT_WORDS: i32 = 10;
const BODY_WORDS: i32 = 18;
{SCRATCH}
// The body arrays, 6 floats a body: v(S), v(T), the displacement (in `ws`, MAX_BODIES apart).
const VS: i32 = 0;
const VT: i32 = 1;
const SHIFT: i32 = 2;

var<workgroup> ws: array<f32, 3060>;

// Part `part` (0 linear, 1 angular) of body slot k of the group in body array `which`
// (k < 0: the ground, at rest).
fn body3(which: i32, k: i32, part: i32) -> vec3<f32> {
    if (k < 0) { return vec3<f32>(0.0); }
    if (is_wide()) { return stored3(body_word(k, 6 * which + 3 * part)); }
    let i = 6 * (i32(MAX_BODIES) * which + k) + 3 * part;
    return vec3<f32>(ws[i], ws[i + 1], ws[i + 2]);
}

fn set3(which: i32, k: i32, part: i32, v: vec3<f32>) {
    if (is_wide()) {
        store3(body_word(k, 6 * which + 3 * part), v);
        return;
    }
    let i = 6 * (i32(MAX_BODIES) * which + k) + 3 * part;
    ws[i] = v.x;
    ws[i + 1] = v.y;
    ws[i + 2] = v.z;
}

// A wide group's contact i: its T, S, P (words 0, 3, 6) and separation (word 9).
const T: i32 = 0;
const S: i32 = 3;
const P: i32 = 6;
const SEP: i32 = 9;

// Texel t of contact `me`'s row of J.
fn jt(me: vec2<i32>, t: i32) -> vec4<f32> {
    return a_texel(contact_column(me.x, t, 9), me.y);
}

// M^-1 of global body slot `body`: the inverse inertia's rows, 1 / mass in the first's w.
fn mass_rows(body: i32, width: i32) -> array<vec4<f32>, 3> {
    let at = vec2<i32>(body / b_height(), body % b_height());
    return array<vec4<f32>, 3>(b_texel(width * at.x, at.y), b_texel(width * at.x + 1, at.y),
        b_texel(width * at.x + 2, at.y));
}

// M^-1 (linear, angular), M^-1 as `rows`: a body's velocity from an impulse.
fn times_mass(m: array<vec4<f32>, 3>, linear: vec3<f32>, angular: vec3<f32>) -> array<vec3<f32>, 2> {
    return array<vec3<f32>, 2>(m[0].w * linear,
        vec3<f32>(dot(m[0].xyz, angular), dot(m[1].xyz, angular), dot(m[2].xyz, angular)));
}

// Adds sign M^-1 (linear, angular), an impulse J_k^T d, to body slot k's v(S) (M^-1 as `m`).
fn push(k: i32, m: array<vec4<f32>, 3>, sign: f32, linear: vec3<f32>, angular: vec3<f32>) {
    if (k < 0) { return; }
    let v = times_mass(m, linear, angular);
    set3(VS, k, 0, body3(VS, k, 0) + sign * v[0]);
    set3(VS, k, 1, body3(VS, k, 1) + sign * v[1]);
}

// The colour and the bodies (slots of the group, < 0: the ground) of contact `me`, whose
// group's bodies start at `first_body`.
fn colour_pair(me: vec2<i32>, first_body: i32) -> vec3<i32> {
    return vec3<i32>(i32(jt(me, 2).w), vec2<i32>(i32(jt(me, 0).w), i32(jt(me, 1).w)) - 1 - first_body);
}

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
    let width = i32(param(0));
    let colours = i32(param(1));
    let mu = param(2);
    let h = param(3);
    let gh = param(4);
    // The thread's contacts within a workgroup's limits, in registers (a wide group's are in
    // storage, where only `i` names them).
    var t: array<vec3<f32>, PER_THREAD>;
    var s: array<vec3<f32>, PER_THREAD>;
    var p: array<vec3<f32>, PER_THREAD>;
    var sep: array<f32, PER_THREAD>;
    // Each slot's colour (-1: no contact) and bodies, read once: a colour's step then waits on
    // one round of texture reads, where reading the colour, then the rows, then the bodies'
    // masses waited on three. A wide group reads them from J at each step.
    var colour_of: array<i32, PER_THREAD>;
    var pair: array<vec2<i32>, PER_THREAD>;
    for (var k = 0u; k < per; k++) {
        let i = lid + THREADS * k;
        if (!wide) { colour_of[k] = -1; }
        if (i < held.x) {
            let at = contact_texel(first + i32(i));
            let s0 = c_texel(at.x, at.y).xyz / f32(SUBSTEPS);
            if (wide) {
                store3(contact_word(i, T), vec3<f32>(0.0));
                store3(contact_word(i, S), s0);
                store3(contact_word(i, P), vec3<f32>(0.0));
            } else {
                s[k] = s0;
                let mine = colour_pair(at, first_body);
                colour_of[k] = mine.x;
                pair[k] = mine.yz;
            }
        }
    }
    // v(S) from the warm start's n-th part, gathered by each body over its contacts.
    for (var slot = lid; slot < held.y; slot += THREADS) {
        let body = first_body + i32(slot);
        let at = vec2<i32>(body / b_height(), body % b_height());
        var linear = vec3<f32>(0.0);
        var angular = vec3<f32>(0.0);
        for (var q = 3; q < width; q++) {
            let list = vec4<i32>(b_texel(width * at.x + q, at.y));
            for (var e = 0; e < 4; e++) {
                let entry = list[e];
                if (entry < 0) { break; }
                let place = contact_texel(entry / 2);
                let side = entry % 2;
                let y = c_texel(place.x, place.y).xyz / f32(SUBSTEPS);
                let sign = 1.0 - 2.0 * f32(side);
                linear += sign * (y.x * jt(place, 0).xyz + y.y * jt(place, 1).xyz + y.z * jt(place, 2).xyz);
                let arm = 3 + 3 * side;
                angular += sign * (y.x * jt(place, arm).xyz + y.y * jt(place, arm + 1).xyz + y.z * jt(place, arm + 2).xyz);
            }
            if (list.w < 0) { break; }
        }
        let v = times_mass(mass_rows(body, width), linear, angular);
        let k = i32(slot);
        set3(VS, k, 0, v[0]);
        set3(VS, k, 1, v[1]);
        for (var part = 0; part < 2; part++) {
            set3(VT, k, part, vec3<f32>(0.0));
            set3(SHIFT, k, part, vec3<f32>(0.0));
        }
    }
    group_barrier();
    var start = 0.0;
    var early = 0.0;
    for (var sub = 1; sub <= SUBSTEPS; sub++) {
        let late = f32(SUBSTEPS - sub);
        for (var sweep = 0; sweep <= SWEEPS; sweep++) {
            let soft = sweep < SWEEPS;
            // The separations: before the first soft sweep and after the move.
            for (var k = 0u; k < per && (sweep == 0 || !soft); k++) {
                let i = lid + THREADS * k;
                if (i < held.x) {
                    let me = contact_texel(first + i32(i));
                    let head = jt(me, 0);
                    var mine: vec3<i32>;
                    if (wide) { mine = colour_pair(me, first_body); } else { mine = vec3<i32>(0, pair[k]); }
                    let ka = mine.y;
                    let kb = mine.z;
                    let sides = f32(ka >= 0) - f32(kb >= 0);
                    let arm_b = jt(me, 6);
                    let moved = dot(head.xyz, body3(SHIFT, ka, 0) - body3(SHIFT, kb, 0))
                        + dot(jt(me, 3).xyz, body3(SHIFT, ka, 1)) - dot(arm_b.xyz, body3(SHIFT, kb, 1));
                    let value = arm_b.w + start * d_texel(me.x, me.y).x + early * gh * sides * head.y + moved;
                    if (wide) { scratch[contact_word(i, SEP)] = value; } else { sep[k] = value; }
                }
            }
            for (var colour = 0; colour < colours; colour++) {
                for (var k = 0u; k < per; k++) {
                    let i = lid + THREADS * k;
                    var mine: vec3<i32>;
                    var me: vec2<i32>;
                    if (wide) {
                        if (i >= held.x) { break; }
                        me = contact_texel(first + i32(i));
                        if (i32(jt(me, 2).w) != colour) { continue; }
                        mine = colour_pair(me, first_body);
                    } else {
                        if (colour_of[k] != colour) { continue; }
                        me = contact_texel(first + i32(i));
                        mine = vec3<i32>(colour, pair[k]);
                    }
                    let ka = mine.y;
                    let kb = mine.z;
                    let ma = mass_rows(first_body + max(ka, 0), width);
                    let mb = mass_rows(first_body + max(kb, 0), width);
                    let head = jt(me, 0);
                    let tail = jt(me, 1);
                    let third = jt(me, 2);
                    let dv = body3(VS, ka, 0) - body3(VS, kb, 0);
                    let wa = body3(VS, ka, 1);
                    let wb = body3(VS, kb, 1);
                    let arm_n = jt(me, 3);
                    let arm_t1 = jt(me, 4);
                    let arm_t2 = jt(me, 5);
                    let b_n = jt(me, 6).xyz;
                    let b_t1 = jt(me, 7).xyz;
                    let b_t2 = jt(me, 8).xyz;
                    let sides = f32(ka >= 0) - f32(kb >= 0);
                    var w = d_texel(me.x, me.y).xyz + late * gh * sides * vec3<f32>(head.y, tail.y, third.y);
                    w.x += dot(head.xyz, dv) + dot(arm_n.xyz, wa) - dot(b_n, wb);
                    w.y += dot(tail.xyz, dv) + dot(arm_t1.xyz, wa) - dot(b_t1, wb);
                    w.z += dot(third.xyz, dv) + dot(arm_t2.xyz, wa) - dot(b_t2, wb);
                    let pd = e_texel(me.x, me.y).xyz;
                    var tk: vec3<f32>;
                    var x: vec3<f32>;
                    var sk: f32;
                    if (wide) {
                        tk = stored3(contact_word(i, T));
                        x = stored3(contact_word(i, S)) - tk;
                        sk = scratch[contact_word(i, SEP)];
                    } else {
                        tk = t[k];
                        x = s[k] - tk;
                        sk = sep[k];
                    }
                    var goal = sk / h;
                    var scale = 1.0;
                    var keep = 0.0;
                    if (sk <= 0.0) {
                        goal = 0.0;
                        if (soft) {
                            goal = max(param(5) * sk, -MAX_CORRECTION);
                            scale = param(6);
                            keep = param(7);
                        }
                    }
                    let n = max(x.x - scale * pd.x * (w.x + goal) - keep * x.x, 0.0);
                    var stepped = vec3<f32>(n, x.y, x.z);
                    if (!soft) {
                        // A_cc's off-diagonal: n t1, n t2, t1 t2.
                        let off = vec3<f32>(arm_n.w, arm_t1.w, arm_t2.w);
                        let dn = n - x.x;
                        w.y += off.x * dn;
                        w.z += off.y * dn;
                        let limit = mu * n;
                        let t1 = clamp(x.y - pd.y * w.y, -limit, limit);
                        w.z += off.z * (t1 - x.y);
                        let t2 = clamp(x.z - pd.z * w.z, -limit, limit);
                        stepped = vec3<f32>(n, t1, t2);
                    }
                    let d = stepped - x;
                    if (wide) { store3(contact_word(i, S), tk + stepped); } else { s[k] = tk + stepped; }
                    // The change's impulse J^T d on both bodies, from the rows read above.
                    let linear = d.x * head.xyz + d.y * tail.xyz + d.z * third.xyz;
                    let on_a = d.x * arm_n.xyz + d.y * arm_t1.xyz + d.z * arm_t2.xyz;
                    push(ka, ma, 1.0, linear, on_a);
                    push(kb, mb, -1.0, linear, d.x * b_n + d.y * b_t1 + d.z * b_t2);
                }
                group_barrier();
            }
            if (sweep + 1 == SWEEPS) {
                for (var k = 0u; k < per; k++) {
                    let i = lid + THREADS * k;
                    if (wide && i < held.x) {
                        store3(contact_word(i, P), stored3(contact_word(i, P)) + h * stored3(contact_word(i, S)));
                    } else if (!wide) {
                        p[k] += h * s[k];
                    }
                }
                for (var slot = lid; slot < held.y; slot += THREADS) {
                    let k = i32(slot);
                    set3(SHIFT, k, 0, body3(SHIFT, k, 0) + h * body3(VS, k, 0));
                    set3(SHIFT, k, 1, body3(SHIFT, k, 1) + h * body3(VS, k, 1));
                }
                start += h;
                early += h * late;
                group_barrier();
            }
        }
        if (sub < SUBSTEPS) {
            for (var k = 0u; k < per; k++) {
                let i = lid + THREADS * k;
                if (wide && i < held.x) {
                    let done = stored3(contact_word(i, S));
                    store3(contact_word(i, S), 2.0 * done - stored3(contact_word(i, T)));
                    store3(contact_word(i, T), done);
                } else if (!wide) {
                    let done = s[k];
                    s[k] = 2.0 * done - t[k];
                    t[k] = done;
                }
            }
            for (var slot = lid; slot < held.y; slot += THREADS) {
                let k = i32(slot);
                for (var part = 0; part < 2; part++) {
                    let done = body3(VS, k, part);
                    set3(VS, k, part, 2.0 * done - body3(VT, k, part));
                    set3(VT, k, part, done);
                }
            }
            group_barrier();
        }
    }
    let second_half = vec2<i32>(out_cols() / 2, 0);
    for (var k = 0u; k < per; k++) {
        let i = lid + THREADS * k;
        if (i < held.x) {
            let at = contact_texel(first + i32(i));
            var sp: array<vec3<f32>, 2>;
            if (wide) {
                sp = array<vec3<f32>, 2>(stored3(contact_word(i, S)), stored3(contact_word(i, P)));
            } else {
                sp = array<vec3<f32>, 2>(s[k], p[k]);
            }
            textureStore(out_tex, at, vec4<f32>(sp[0], 0.0));
            textureStore(out_tex, at + second_half, vec4<f32>(sp[1], 0.0));
        }
    }
}
