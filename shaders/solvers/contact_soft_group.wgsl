// The soft step (src/solver/contact_soft.rs; float64 twin ContactLcp::solve_soft) with EVERY
// substep in one compute dispatch, a workgroup per group of whole islands as in
// contact_nesterov_group.wgsl (its inputs; texel 6 of J carries the contact's separation at the
// frame's start in w). A thread owns contacts lid, lid + THREADS, ... of its group and keeps
// their T (the finished substeps' impulses), S (T plus this substep's), P (the impulses behind
// the displacement), separation, colour and bodies in registers; workgroup memory holds each
// body's v(S), v(T) and displacement M^-1 J^T P. The contacts of one colour share no body, so a thread that steps
// one adds the change to both bodies' velocities itself: a colour costs one barrier, where the
// passes gather every body's velocity again. Per substep, as the passes:
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
// Where each body array starts in `ws`: v(S), v(T), the displacement; 6 floats a body.
const VS: i32 = 0;
const VT: i32 = 1020;
const SHIFT: i32 = 2040;

var<workgroup> ws: array<f32, 3060>;

// Part `part` (0 linear, 1 angular) of body slot k of the group in the array at `base`
// (k < 0: the ground, at rest).
fn body3(base: i32, k: i32, part: i32) -> vec3<f32> {
    if (k < 0) { return vec3<f32>(0.0); }
    let i = base + 6 * k + 3 * part;
    return vec3<f32>(ws[i], ws[i + 1], ws[i + 2]);
}

fn set3(base: i32, k: i32, part: i32, v: vec3<f32>) {
    let i = base + 6 * k + 3 * part;
    ws[i] = v.x;
    ws[i + 1] = v.y;
    ws[i + 2] = v.z;
}

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

@compute @workgroup_size(THREADS)
fn cs_main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) group: vec3<u32>) {
    let range = vec4<i32>(f_texel(0, i32(group.x)));
    let first = range.x;
    let contacts = u32(clamp(range.y - first, 0, i32(MAX_CONTACTS)));
    let first_body = range.z;
    let bodies = u32(clamp(range.w - first_body, 0, i32(MAX_BODIES)));
    let width = i32(param(0));
    let colours = i32(param(1));
    let mu = param(2);
    let h = param(3);
    let gh = param(4);
    var t: array<vec3<f32>, PER_THREAD>;
    var s: array<vec3<f32>, PER_THREAD>;
    var p: array<vec3<f32>, PER_THREAD>;
    var sep: array<f32, PER_THREAD>;
    // Each slot's colour (-1: no contact) and bodies (slots of the group, < 0: the ground),
    // read once: a colour's step then waits on one round of texture reads, where reading the
    // colour, then the rows, then the bodies' masses waited on three.
    var colour_of: array<i32, PER_THREAD>;
    var pair: array<vec2<i32>, PER_THREAD>;
    for (var k = 0u; k < PER_THREAD; k++) {
        let i = lid + THREADS * k;
        colour_of[k] = -1;
        if (i < contacts) {
            let at = contact_texel(first + i32(i));
            s[k] = c_texel(at.x, at.y).xyz / f32(SUBSTEPS);
            colour_of[k] = i32(jt(at, 2).w);
            pair[k] = vec2<i32>(i32(jt(at, 0).w), i32(jt(at, 1).w)) - 1 - first_body;
        }
    }
    // v(S) from the warm start's n-th part, gathered by each body over its contacts.
    for (var slot = lid; slot < bodies; slot += THREADS) {
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
    workgroupBarrier();
    var start = 0.0;
    var early = 0.0;
    for (var sub = 1; sub <= SUBSTEPS; sub++) {
        let late = f32(SUBSTEPS - sub);
        for (var sweep = 0; sweep <= SWEEPS; sweep++) {
            let soft = sweep < SWEEPS;
            // The separations: before the first soft sweep and after the move.
            for (var k = 0u; k < PER_THREAD && (sweep == 0 || !soft); k++) {
                let i = lid + THREADS * k;
                if (i < contacts) {
                    let me = contact_texel(first + i32(i));
                    let head = jt(me, 0);
                    let ka = pair[k].x;
                    let kb = pair[k].y;
                    let sides = f32(ka >= 0) - f32(kb >= 0);
                    let arm_b = jt(me, 6);
                    let moved = dot(head.xyz, body3(SHIFT, ka, 0) - body3(SHIFT, kb, 0))
                        + dot(jt(me, 3).xyz, body3(SHIFT, ka, 1)) - dot(arm_b.xyz, body3(SHIFT, kb, 1));
                    sep[k] = arm_b.w + start * d_texel(me.x, me.y).x + early * gh * sides * head.y + moved;
                }
            }
            for (var colour = 0; colour < colours; colour++) {
                for (var k = 0u; k < PER_THREAD; k++) {
                    if (colour_of[k] != colour) { continue; }
                    let me = contact_texel(first + i32(lid + THREADS * k));
                    let ka = pair[k].x;
                    let kb = pair[k].y;
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
                    let x = s[k] - t[k];
                    var goal = sep[k] / h;
                    var scale = 1.0;
                    var keep = 0.0;
                    if (sep[k] <= 0.0) {
                        goal = 0.0;
                        if (soft) {
                            goal = max(param(5) * sep[k], -MAX_CORRECTION);
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
                    s[k] = t[k] + stepped;
                    // The change's impulse J^T d on both bodies, from the rows read above.
                    let linear = d.x * head.xyz + d.y * tail.xyz + d.z * third.xyz;
                    let on_a = d.x * arm_n.xyz + d.y * arm_t1.xyz + d.z * arm_t2.xyz;
                    push(ka, ma, 1.0, linear, on_a);
                    push(kb, mb, -1.0, linear, d.x * b_n + d.y * b_t1 + d.z * b_t2);
                }
                workgroupBarrier();
            }
            if (sweep + 1 == SWEEPS) {
                for (var k = 0u; k < PER_THREAD; k++) {
                    p[k] += h * s[k];
                }
                for (var slot = lid; slot < bodies; slot += THREADS) {
                    let k = i32(slot);
                    set3(SHIFT, k, 0, body3(SHIFT, k, 0) + h * body3(VS, k, 0));
                    set3(SHIFT, k, 1, body3(SHIFT, k, 1) + h * body3(VS, k, 1));
                }
                start += h;
                early += h * late;
                workgroupBarrier();
            }
        }
        if (sub < SUBSTEPS) {
            for (var k = 0u; k < PER_THREAD; k++) {
                let done = s[k];
                s[k] = 2.0 * done - t[k];
                t[k] = done;
            }
            for (var slot = lid; slot < bodies; slot += THREADS) {
                let k = i32(slot);
                for (var part = 0; part < 2; part++) {
                    let done = body3(VS, k, part);
                    set3(VS, k, part, 2.0 * done - body3(VT, k, part));
                    set3(VT, k, part, done);
                }
            }
            workgroupBarrier();
        }
    }
    let second_half = vec2<i32>(out_cols() / 2, 0);
    for (var k = 0u; k < PER_THREAD; k++) {
        let i = lid + THREADS * k;
        if (i < contacts) {
            let at = contact_texel(first + i32(i));
            textureStore(out_tex, at, vec4<f32>(s[k], 0.0));
            textureStore(out_tex, at + second_half, vec4<f32>(p[k], 0.0));
        }
    }
}
