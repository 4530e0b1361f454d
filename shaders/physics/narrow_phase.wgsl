// The narrow phase on the GPU: the float32 twin of src/physics/contact.rs (which explains
// each test), one thread per candidate of the broad phase. Compute only (WebGPU).
//
// Input a, the bodies, 4 texels each in the bodies' wrap (contact_layout: body k at texel row
// k % H of segment k / H, H = a's texel rows): (centre, half the edge of a cube or minus the
// radius of a ball), then its rotation's three columns (the body's axes in world coordinates),
// their w what float32 rounded off the centre's x, y and z. A thread works in x and z relative
// to its candidate's first body (the origin), so that far from the world's origin (a scene of
// 10,000 walls reaches 355 m, where float32 rounds a coordinate to 3e-5 m) the bodies keep
// their float64 distances to float32's precision near zero.
// Input b, the candidates, 1 texel each in the output's wrap: (body i, body j, margin, 0), j
// being -1 for the ground under corners 0-3 of a cube (or a ball) and -2 under corners 4-7.
// Output, TEXELS (6) texels per candidate: (points, body a, body b or -1, 0), (normal from b
// towards a, 0), then up to 4 points (point less the origin's x and z, depth); texels past the
// points are left as they were.
// param(0): how much further a face of B must separate the cubes than one of A to be chosen,
// as a fraction of the smaller half edge (physics::FACE_TIE).

const NO_BODY: i32 = -1;
const TEXELS: i32 = {TEXELS};  // output texels per candidate

var<private> found: i32;
var<private> points: array<vec4<f32>, 8>;
var<private> polygon: array<vec3<f32>, 8>;
var<private> clipped: array<vec3<f32>, 8>;

struct Body {
    centre: vec3<f32>,
    size: f32,
    axes: mat3x3<f32>,
}

// The origin's x and z (y = 0), as float32 and what float32 rounded off.
var<private> origin: vec3<f32>;
var<private> origin_low: vec3<f32>;

fn set_origin(k: i32) {
    let at = contact_place(k, a_height());
    origin = a_texel(4 * at.x, at.y).xyz * vec3<f32>(1.0, 0.0, 1.0);
    origin_low = vec3<f32>(a_texel(4 * at.x + 1, at.y).w, 0.0, a_texel(4 * at.x + 3, at.y).w);
}

// Body k, its centre relative to the origin: the float32 parts first (exact for bodies near
// the origin), then the rounded-off parts.
fn body(k: i32) -> Body {
    let at = contact_place(k, a_height());
    let p = a_texel(4 * at.x, at.y);
    let x = a_texel(4 * at.x + 1, at.y);
    let y = a_texel(4 * at.x + 2, at.y);
    let z = a_texel(4 * at.x + 3, at.y);
    let centre = (p.xyz - origin) + (vec3<f32>(x.w, y.w, z.w) - origin_low);
    return Body(centre, p.w, mat3x3<f32>(x.xyz, y.xyz, z.xyz));
}

fn add_point(point: vec3<f32>, depth: f32) {
    points[found] = vec4<f32>(point, depth);
    found += 1;
}

// Corners 4 part .. 4 part + 3 of a cube closer to the ground than margin (bit 0 of a corner's
// index is +x, bit 1 +y, bit 2 +z), or a ball's lowest point.
fn ground(k: i32, part: i32, margin: f32) {
    let b = body(k);
    if (b.size < 0.0) {
        let point = b.centre - vec3<f32>(0.0, -b.size, 0.0);
        if (part == 0 && point.y < margin) {
            add_point(point, -point.y);
        }
        return;
    }
    for (var c = 4 * part; c < 4 * part + 4; c++) {
        let s = vec3<f32>(vec3<i32>(c & 1, (c >> 1u) & 1, (c >> 2u) & 1)) * 2.0 - 1.0;
        let point = b.centre + b.axes * (s * b.size);
        if (point.y < margin) {
            add_point(point, -point.y);
        }
    }
}

// A ball against a cube: the normal (from the cube towards the ball) and one point.
fn ball_cube(ball: Body, cube: Body, margin: f32) -> vec3<f32> {
    let radius = -ball.size;
    let half = cube.size;
    let local = transpose(cube.axes) * (ball.centre - cube.centre);
    let closest = clamp(local, vec3<f32>(-half), vec3<f32>(half));
    let diff = local - closest;
    let dist = length(diff);
    var normal: vec3<f32>;
    var depth: f32;
    var at = closest;
    if (dist > 1e-9) {
        normal = cube.axes * (diff / dist);
        depth = radius - dist;
    } else {
        let room = vec3<f32>(half) - abs(local);
        var k = 2;
        if (room.x <= room.y && room.x <= room.z) {
            k = 0;
        } else if (room.y <= room.z) {
            k = 1;
        }
        var n = vec3<f32>(0.0);
        n[k] = sign(local[k]);
        at = local;
        at[k] = half * n[k];
        normal = cube.axes * n;
        depth = radius + room[k];
    }
    if (depth >= -margin) {
        add_point(cube.centre + cube.axes * at, depth);
    }
    return normal;
}

// Separation of A and B along the unit axis l turned towards B (xyz), and the separation (w).
fn test_axis(l0: vec3<f32>, d: vec3<f32>, a: Body, b: Body) -> vec4<f32> {
    let l = select(l0, -l0, dot(l0, d) < 0.0);
    let pa = (abs(dot(a.axes[0], l)) + abs(dot(a.axes[1], l)) + abs(dot(a.axes[2], l))) * a.size;
    let pb = (abs(dot(b.axes[0], l)) + abs(dot(b.axes[1], l)) + abs(dot(b.axes[2], l))) * b.size;
    return vec4<f32>(l, dot(d, l) - pa - pb);
}

// Sutherland-Hodgman: the part of `polygon` (n points) where dir . p <= offset, back into
// `polygon`; returns its points.
fn clip(n: i32, dir: vec3<f32>, offset: f32) -> i32 {
    var m = 0;
    for (var k = 0; k < n; k++) {
        let p = polygon[k];
        let q = polygon[(k + 1) % n];
        let dp = dot(dir, p) - offset;
        let dq = dot(dir, q) - offset;
        if (dp <= 0.0) {
            clipped[m] = p;
            m += 1;
        }
        if ((dp < 0.0) != (dq < 0.0) && abs(dp - dq) > 1e-15) {
            clipped[m] = p + (q - p) * (dp / (dp - dq));
            m += 1;
        }
    }
    for (var k = 0; k < m; k++) {
        polygon[k] = clipped[k];
    }
    return m;
}

// The incident cube's face most opposed to the reference cube's face k (outward normal n
// towards the incident cube), clipped against that face's sides: up to 4 points.
fn face_contacts(inc: Body, rf: Body, k: i32, n: vec3<f32>, margin: f32) {
    let face_centre = rf.centre + n * rf.size;
    let u = rf.axes[(k + 1) % 3];
    let v = rf.axes[(k + 2) % 3];
    // The last of equal ones, as Rust's max_by.
    var m = 0;
    for (var x = 1; x < 3; x++) {
        if (abs(dot(inc.axes[x], n)) >= abs(dot(inc.axes[m], n))) {
            m = x;
        }
    }
    let facing = -inc.axes[m] * sign(dot(inc.axes[m], n));
    let centre = inc.centre + facing * inc.size;
    let t1 = inc.axes[(m + 1) % 3] * inc.size;
    let t2 = inc.axes[(m + 2) % 3] * inc.size;
    polygon[0] = centre + t1 + t2;
    polygon[1] = centre - t1 + t2;
    polygon[2] = centre - t1 - t2;
    polygon[3] = centre + t1 - t2;
    var size = 4;
    var sides = array<vec3<f32>, 4>(u, -u, v, -v);
    for (var s = 0; s < 4; s++) {
        size = clip(size, sides[s], dot(sides[s], rf.centre) + rf.size);
        if (size == 0) {
            return;
        }
    }
    var kept = 0;
    for (var p = 0; p < size; p++) {
        let separation = dot(n, polygon[p] - face_centre);
        if (separation <= margin) {
            points[kept] = vec4<f32>(polygon[p] - n * (0.5 * separation), -separation);
            kept += 1;
        }
    }
    reduce_to_four(kept);
}

// Keeps at most four points: the deepest, then each time the one furthest from those kept
// (the last of equal ones, as Rust's max_by).
fn reduce_to_four(n: i32) {
    if (n <= 4) {
        found = n;
        return;
    }
    var kept: array<vec4<f32>, 4>;
    var deepest = 0;
    for (var p = 1; p < n; p++) {
        if (points[p].w >= points[deepest].w) {
            deepest = p;
        }
    }
    kept[0] = points[deepest];
    for (var c = 1; c < 4; c++) {
        var best = 0;
        var best_far = -1.0;
        for (var p = 0; p < n; p++) {
            var far = 3.4e38;
            for (var q = 0; q < c; q++) {
                let e = kept[q].xyz - points[p].xyz;
                far = min(far, dot(e, e));
            }
            if (far >= best_far) {
                best_far = far;
                best = p;
            }
        }
        kept[c] = points[best];
    }
    for (var c = 0; c < 4; c++) {
        points[c] = kept[c];
    }
    found = 4;
}

// Parameters (s, t) of the closest points of the segments pa + s ea, |s| <= ha, and
// pb + t eb, |t| <= hb (unit directions).
fn closest_on_segments(
    pa: vec3<f32>, ea: vec3<f32>, ha: f32, pb: vec3<f32>, eb: vec3<f32>, hb: f32
) -> vec2<f32> {
    let r = pa - pb;
    let b = dot(ea, eb);
    let c = dot(ea, r);
    let f = dot(eb, r);
    let denom = 1.0 - b * b;
    var s = 0.0;
    if (denom > 1e-12) {
        s = clamp((b * f - c) / denom, -ha, ha);
    }
    let t = clamp(b * s + f, -hb, hb);
    s = clamp(b * t - c, -ha, ha);
    return vec2<f32>(s, t);
}

// A cube's supporting point along dir, its edge along axis `skip` left free.
fn support(b: Body, skip: i32, dir: vec3<f32>) -> vec3<f32> {
    var p = b.centre;
    for (var k = 0; k < 3; k++) {
        if (k != skip) {
            p += b.axes[k] * (b.size * sign(dot(b.axes[k], dir)));
        }
    }
    return p;
}

// Cube A (body i) against cube B (body j): the separating axis test over 15 axes, then the
// points of the face or the edges chosen. Returns (normal from b towards a, 1 where a is B).
fn cube_cube(a: Body, b: Body, margin: f32, tie: f32) -> vec4<f32> {
    let d = b.centre - a.centre;
    var face = vec4<f32>(0.0, 0.0, 0.0, -3.4e38);
    var face_kind = -1;
    for (var k = 0; k < 3; k++) {
        for (var side = 0; side < 2; side++) {
            let axis = test_axis(select(a.axes[k], b.axes[k], side == 1), d, a, b);
            if (axis.w > margin) {
                return vec4<f32>(0.0);
            }
            // Near ties (aligned cubes) go to A's faces, which come first.
            if (face_kind < 0 || axis.w > face.w + tie * min(a.size, b.size)) {
                face = axis;
                face_kind = 3 * side + k;
            }
        }
    }
    var edge = vec4<f32>(0.0, 0.0, 0.0, -3.4e38);
    var edge_kind = -1;
    for (var i = 0; i < 3; i++) {
        for (var j = 0; j < 3; j++) {
            let l = cross(a.axes[i], b.axes[j]);
            let len = length(l);
            if (len < 1e-6) {
                continue;
            }
            let axis = test_axis(l * (1.0 / len), d, a, b);
            if (axis.w > margin) {
                return vec4<f32>(0.0);
            }
            if (edge_kind < 0 || axis.w > edge.w) {
                edge = axis;
                edge_kind = 3 * i + j;
            }
        }
    }
    // An edge axis must beat the best face clearly: face manifolds are far more stable.
    if (edge_kind >= 0 && edge.w > face.w + 0.02 * min(a.size, b.size)) {
        let n = edge.xyz;
        let i = edge_kind / 3;
        let j = edge_kind % 3;
        let pa = support(a, i, n);
        let pb = support(b, j, -n);
        let st = closest_on_segments(pa, a.axes[i], a.size, pb, b.axes[j], b.size);
        let qa = pa + a.axes[i] * st.x;
        let qb = pb + b.axes[j] * st.y;
        add_point((qa + qb) * 0.5, -edge.w);
        return vec4<f32>(n, 1.0);
    }
    if (face_kind < 3) {
        face_contacts(b, a, face_kind, face.xyz, margin);
        return vec4<f32>(face.xyz, 1.0);
    }
    face_contacts(a, b, face_kind - 3, -face.xyz, margin);
    return vec4<f32>(-face.xyz, 0.0);
}

@compute @workgroup_size(1, 64)
fn cs_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let segment = i32(id.x);
    let row = i32(id.y);
    let h = (out_rows() + 3) / 4;
    if (row >= h || TEXELS * segment >= out_cols()) {
        return;
    }
    let entry = b_texel(segment, row);
    let i = i32(entry.x);
    let j = i32(entry.y);
    let margin = entry.z;
    let x = TEXELS * segment;
    if (i < 0) {
        textureStore(out_tex, vec2<i32>(x, row), vec4<f32>(0.0, -1.0, -1.0, 0.0));
        return;
    }
    found = 0;
    set_origin(i);
    var normal = vec3<f32>(0.0, 1.0, 0.0);
    var a = i;
    var other = NO_BODY;
    if (j < 0) {
        ground(i, -1 - j, margin);
    } else {
        let bi = body(i);
        let bj = body(j);
        other = j;
        if (bi.size < 0.0) {
            normal = ball_cube(bi, bj, margin);
        } else if (bj.size < 0.0) {
            normal = ball_cube(bj, bi, margin);
            a = j;
            other = i;
        } else {
            let chosen = cube_cube(bi, bj, margin, param(0));
            normal = chosen.xyz;
            if (chosen.w > 0.5) {
                a = j;
                other = i;
            }
        }
    }
    textureStore(out_tex, vec2<i32>(x, row), vec4<f32>(f32(found), f32(a), f32(other), 0.0));
    textureStore(out_tex, vec2<i32>(x + 1, row), vec4<f32>(normal, 0.0));
    for (var p = 0; p < found; p++) {
        textureStore(out_tex, vec2<i32>(x + 2 + p, row), points[p]);
    }
}
