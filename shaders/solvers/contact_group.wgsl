// What the single-dispatch group kernels share (contact_nesterov_group.wgsl and
// contact_soft_group.wgsl; put after contact_layout.wgsl): where a group's state lives.
//
// A group within a workgroup's limits (MAX_CONTACTS contacts, MAX_BODIES bodies) keeps its
// contacts' state in registers and its bodies' in workgroup memory. A wide group, one island
// past those limits (walls falling onto each other after the ball), keeps both in the scratch
// storage the kernel is built with when a frame has one (WIDE), and its workgroup goes through
// it THREADS contacts and bodies at a time. The storage holds the wide groups' contacts,
// CONTACT_WORDS each, then their bodies, BODY_WORDS each; texel 1 of group g (input f) is
// (its first contact among them, its first body, the wide groups' contacts in all, 0), x = -1
// for a group within its workgroup. Each kernel declares THREADS, PER_THREAD, MAX_CONTACTS,
// MAX_BODIES, WIDE, CONTACT_WORDS, BODY_WORDS and `scratch`.

// The words where this workgroup's wide group keeps its contacts' state and its bodies'; x < 0
// when its group is not wide.
var<private> wide_at: vec2<i32> = vec2<i32>(-1, 0);

// Group g's range (texel 0: first contact, end, first body slot, end); notes where a wide
// group's state lies.
fn group_range(g: i32) -> vec4<i32> {
    if (WIDE) {
        let place = vec4<i32>(f_texel(1, g));
        if (place.x >= 0) {
            wide_at = vec2<i32>(CONTACT_WORDS * place.x, CONTACT_WORDS * place.z + BODY_WORDS * place.y);
        }
    }
    return vec4<i32>(f_texel(0, g));
}

fn is_wide() -> bool {
    return WIDE && wide_at.x >= 0;
}

// Contacts (or bodies) a thread takes: its registers' worth, or its share of a wide group's.
fn per_thread(count: u32) -> u32 {
    return select(PER_THREAD, (count + THREADS - 1u) / THREADS, is_wide());
}

// The contacts and bodies of a group of `contacts` and `bodies` that the thread loops go
// through: no more than the workgroup's memory holds, or all of a wide group's.
fn extent(contacts: u32, bodies: u32) -> vec2<u32> {
    if (is_wide()) {
        return vec2<u32>(contacts, bodies);
    }
    return vec2<u32>(min(contacts, MAX_CONTACTS), min(bodies, MAX_BODIES));
}

// The storage word `w` of the wide group's contact i, and of its body slot k.
fn contact_word(i: u32, w: i32) -> i32 {
    return wide_at.x + CONTACT_WORDS * i32(i) + w;
}

fn body_word(k: i32, w: i32) -> i32 {
    return wide_at.y + BODY_WORDS * k + w;
}

fn stored3(at: i32) -> vec3<f32> {
    return vec3<f32>(scratch[at], scratch[at + 1], scratch[at + 2]);
}

fn store3(at: i32, v: vec3<f32>) {
    scratch[at] = v.x;
    scratch[at + 1] = v.y;
    scratch[at + 2] = v.z;
}

// A barrier after which every thread of the workgroup sees what the others wrote before it,
// the scratch storage included.
fn group_barrier() {
    if (WIDE) {
        storageBarrier();
    }
    workgroupBarrier();
}
