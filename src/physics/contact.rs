//! Contact points between cubes, the ball and the ground: the narrow phase.
//!
//! Cube against cube uses the separating axis test over the 15 candidate axes (3 face normals of
//! each cube, 9 edge cross products). A face axis clips the other cube's most opposed face
//! against the side planes of the reference face and keeps up to 4 points (a resting cube gets
//! its 4 corners); an edge axis gives the one point between the two closest edges.

use glam::{DMat3, DVec3};

use super::body::{Body, Shape};
use crate::order::{f64_key, order_by};

/// One contact point. The impulse along `normal` pushes body `a` away from `b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// The body the normal points into.
    pub a: usize,
    /// The other body, `None` for the ground.
    pub b: Option<usize>,
    /// Where the impulses act, world coordinates, m.
    pub point: DVec3,
    /// Unit normal from `b` towards `a`.
    pub normal: DVec3,
    /// Penetration depth along the normal, m; negative when the bodies are still apart by less
    /// than the contact margin (a speculative contact).
    pub depth: f64,
}

/// A pair the narrow phase tests: body `a` against body `b`, or against the ground where `b`
/// is `None`, within `margin` m (the contact margin plus the distance their surfaces can
/// travel in the frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// The first body (the lower index of a pair).
    pub a: usize,
    /// The second body, `None` for the ground.
    pub b: Option<usize>,
    /// How far apart the surfaces may be and still make a (speculative) contact, m.
    pub margin: f64,
}

/// Every contact point among `bodies` and with the ground, for bodies closer than `margin` m
/// plus the distance their surfaces can travel in the next `dt` seconds (speculative
/// contacts: a cube falling at 7 m/s moves 12 cm in a 60 Hz frame, so a fixed margin would let
/// it sink into the floor before any contact exists). Sleeping bodies get no contacts with the
/// ground or each other, only with awake bodies. Deterministic: the same bodies always give the
/// same list in the same order: [`candidates`]' order, each one's points in turn.
pub fn find_contacts(bodies: &[Body], margin: f64, dt: f64) -> Vec<Contact> {
    // Each body's rotation matrix once, not once per pair.
    let turned: Vec<DMat3> = bodies.iter().map(Body::rotation).collect();
    let mut out = Vec::new();
    let mut clipping = Clipping::default();
    for c in candidates(bodies, margin, dt) {
        let (i, a) = (c.a, &bodies[c.a]);
        let Some(j) = c.b else {
            ground((i, a, &turned[i]), c.margin, &mut out);
            continue;
        };
        let (b, ta, tb) = (&bodies[j], &turned[i], &turned[j]);
        match (a.shape, b.shape) {
            (Shape::Cube { half: ha }, Shape::Cube { half: hb }) => cube_cube(
                (i, a, ta, ha),
                (j, b, tb, hb),
                c.margin,
                &mut out,
                &mut clipping,
            ),
            (Shape::Ball { radius }, Shape::Cube { half }) => {
                ball_cube((i, a, radius), (j, b, tb, half), c.margin, &mut out)
            }
            (Shape::Cube { half }, Shape::Ball { radius }) => {
                ball_cube((j, b, radius), (i, a, ta, half), c.margin, &mut out)
            }
            (Shape::Ball { .. }, Shape::Ball { .. }) => {}
        }
    }
    out
}

/// What [`find_contacts`] tests, in its order: every awake body against the ground, then the
/// pairs `(a, b)`, `a < b`, in ascending order, whose bounding spheres grown by the margin and
/// their travel overlap and of which one at least is awake (the broad phase).
pub fn candidates(bodies: &[Body], margin: f64, dt: f64) -> Vec<Candidate> {
    let travel: Vec<f64> = bodies.iter().map(|b| dt * b.fastest_point()).collect();
    let mut out = Vec::new();
    for (i, body) in bodies.iter().enumerate() {
        if body.asleep.is_none() {
            out.push(Candidate {
                a: i,
                b: None,
                margin: margin + travel[i],
            });
        }
    }
    for (i, j) in close_pairs(bodies, &travel, margin) {
        let (a, b) = (&bodies[i], &bodies[j]);
        let margin = margin + travel[i] + travel[j];
        let apart = a.position.distance(b.position) > a.reach() + b.reach() + margin;
        let balls = matches!((a.shape, b.shape), (Shape::Ball { .. }, Shape::Ball { .. }));
        if !apart && !balls && (a.asleep.is_none() || b.asleep.is_none()) {
            out.push(Candidate {
                a: i,
                b: Some(j),
                margin,
            });
        }
    }
    out
}

/// The broad phase, sweep and prune: the pairs `(i, j)`, `i < j`, in ascending order, whose
/// bounding spheres grown by the margin and their travel may overlap: along the axis on which
/// the bodies spread widest (x for one wall, z across a row of walls) and then along the other
/// two. Sorting by where each interval starts, each body meets only those starting before its
/// interval ends: O(n log n + pairs) instead of all n² pairs.
fn close_pairs(bodies: &[Body], travel: &[f64], margin: f64) -> Vec<(usize, usize)> {
    let spread = |axis: usize| {
        let (lo, hi) = bodies
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), b| {
                (lo.min(b.position[axis]), hi.max(b.position[axis]))
            });
        hi - lo
    };
    let axis = (0..3)
        .max_by(|a, b| spread(*a).total_cmp(&spread(*b)))
        .unwrap_or(0);
    // Interval of body i along the axis: its centre +- (reach + travel + margin / 2), so that
    // two intervals overlap whenever the pair test of `find_contacts` may pass.
    let half: Vec<f64> = (0..bodies.len())
        .map(|i| bodies[i].reach() + travel[i] + 0.5 * margin)
        .collect();
    let start = |i: usize| bodies[i].position[axis] - half[i];
    let order = order_by(bodies.len(), |i| f64_key(start(i)));
    // Pairs whose intervals overlap along the other two axes too: a row of walls overlaps
    // along z wall by wall, so the sweep alone would keep all 1770 pairs of each wall's 60.
    let near = |i: usize, j: usize| {
        (0..3).all(|a| {
            a == axis || (bodies[i].position[a] - bodies[j].position[a]).abs() <= half[i] + half[j]
        })
    };
    let mut pairs = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let end = bodies[i].position[axis] + half[i];
        for &j in order[k + 1..].iter().take_while(|&&j| start(j) <= end) {
            if near(i, j) {
                pairs.push((i.min(j), i.max(j)));
            }
        }
    }
    order_by(pairs.len(), |k| {
        (pairs[k].0 as u64) << 32 | pairs[k].1 as u64
    })
    .into_iter()
    .map(|k| pairs[k])
    .collect()
}

/// Body `i`'s contacts with the ground: a ball's lowest point, a cube's corners (`r`: its
/// rotation) closer than `margin`.
fn ground((i, body, r): (usize, &Body, &DMat3), margin: f64, out: &mut Vec<Contact>) {
    let mut touch = |point: DVec3| {
        if point.y < margin {
            out.push(Contact {
                a: i,
                b: None,
                point,
                normal: DVec3::Y,
                depth: -point.y,
            });
        }
    };
    match body.shape {
        Shape::Ball { radius } => touch(body.position - DVec3::Y * radius),
        Shape::Cube { half } => {
            for corner in 0..8 {
                // Bit 0 of the corner's index is +x, bit 1 +y, bit 2 +z.
                let s = |bit: usize| [-half, half][(corner >> bit) & 1];
                touch(body.position + *r * DVec3::new(s(0), s(1), s(2)));
            }
        }
    }
}

/// The contact of a ball with a cube (`r`: its rotation).
fn ball_cube(
    (ib, ball, radius): (usize, &Body, f64),
    (ic, cube, r, half): (usize, &Body, &DMat3, f64),
    margin: f64,
    out: &mut Vec<Contact>,
) {
    let r = *r;
    let local = r.transpose() * (ball.position - cube.position);
    let closest = local.clamp(DVec3::splat(-half), DVec3::splat(half));
    let diff = local - closest;
    let dist = diff.length();
    let (normal, depth, at) = if dist > 1e-9 {
        (r * (diff / dist), radius - dist, closest)
    } else {
        // The centre is inside the cube: leave through the nearest face.
        let room = DVec3::splat(half) - local.abs();
        let k = if room.x <= room.y && room.x <= room.z {
            0
        } else if room.y <= room.z {
            1
        } else {
            2
        };
        let mut n = DVec3::ZERO;
        n[k] = local[k].signum();
        let mut at = local;
        at[k] = half * n[k];
        (r * n, radius + room[k], at)
    };
    if depth < -margin {
        return;
    }
    out.push(Contact {
        a: ib,
        b: Some(ic),
        point: cube.position + r * at,
        normal,
        depth,
    });
}

/// How much further a face of cube B must separate the cubes than one of A to be the
/// reference face, as a fraction of the smaller half edge (2.5 um for the wall's cubes): cubes
/// nearly aligned, whose faces separate them by amounts within their rounding, keep A's face
/// from frame to frame (the warm start matches contacts by their bodies' order), and float32
/// (`shaders/physics/narrow_phase.wgsl`) chooses as float64 does.
pub const FACE_TIE: f64 = 1e-5;

/// A candidate separating axis, oriented from cube A towards cube B.
#[derive(Clone, Copy)]
struct Axis {
    /// Signed separation along the axis (negative: overlap), m.
    separation: f64,
    normal: DVec3,
    kind: AxisKind,
}

#[derive(Clone, Copy)]
enum AxisKind {
    FaceA(usize),
    FaceB(usize),
    Edges(usize, usize),
}

/// The narrow phase's buffers, kept from pair to pair: a face's polygon as it is clipped and
/// the points it leaves.
#[derive(Default)]
struct Clipping {
    polygon: Vec<DVec3>,
    clipped: Vec<DVec3>,
    points: Vec<(DVec3, f64)>,
}

fn cube_cube(
    (ia, a, ra, ha): (usize, &Body, &DMat3, f64),
    (ib, b, rb, hb): (usize, &Body, &DMat3, f64),
    margin: f64,
    out: &mut Vec<Contact>,
    clipping: &mut Clipping,
) {
    let axes_a = [ra.x_axis, ra.y_axis, ra.z_axis];
    let axes_b = [rb.x_axis, rb.y_axis, rb.z_axis];
    let d = b.position - a.position;
    let test = |l: DVec3, kind: AxisKind| -> Axis {
        let l = if l.dot(d) < 0.0 { -l } else { l };
        let pa: f64 = axes_a.iter().map(|e| e.dot(l).abs()).sum::<f64>() * ha;
        let pb: f64 = axes_b.iter().map(|e| e.dot(l).abs()).sum::<f64>() * hb;
        Axis {
            separation: d.dot(l) - pa - pb,
            normal: l,
            kind,
        }
    };
    let mut face: Option<Axis> = None;
    let mut edge: Option<Axis> = None;
    for k in 0..3 {
        for axis in [
            test(axes_a[k], AxisKind::FaceA(k)),
            test(axes_b[k], AxisKind::FaceB(k)),
        ] {
            if axis.separation > margin {
                return;
            }
            // Near ties (aligned cubes) go to A's faces, which come first.
            if face.is_none_or(|f| axis.separation > f.separation + FACE_TIE * ha.min(hb)) {
                face = Some(axis);
            }
        }
    }
    for (i, ea) in axes_a.iter().enumerate() {
        for (j, eb) in axes_b.iter().enumerate() {
            let l = ea.cross(*eb);
            let length = l.length();
            if length < 1e-6 {
                continue;
            }
            // `normalize`'s arithmetic, the length found once.
            let axis = test(l * length.recip(), AxisKind::Edges(i, j));
            if axis.separation > margin {
                return;
            }
            if edge.is_none_or(|e| axis.separation > e.separation) {
                edge = Some(axis);
            }
        }
    }
    let face = face.expect("three face axes were tested");
    // An edge axis must beat the best face clearly: face manifolds are far more stable.
    let chosen = match edge {
        Some(e) if e.separation > face.separation + 0.02 * ha.min(hb) => e,
        _ => face,
    };
    match chosen.kind {
        AxisKind::FaceA(k) => face_contacts(
            ib,
            b,
            hb,
            &axes_b,
            ia,
            a,
            ha,
            &axes_a,
            k,
            chosen.normal,
            margin,
            (out, clipping),
        ),
        AxisKind::FaceB(k) => face_contacts(
            ia,
            a,
            ha,
            &axes_a,
            ib,
            b,
            hb,
            &axes_b,
            k,
            -chosen.normal,
            margin,
            (out, clipping),
        ),
        AxisKind::Edges(i, j) => {
            // Supporting edges: A's edge along axes_a[i] furthest along +n, B's along -n.
            let n = chosen.normal;
            let support = |c: DVec3, axes: &[DVec3; 3], h: f64, skip: usize, dir: DVec3| {
                (0..3)
                    .filter(|&k| k != skip)
                    .fold(c, |p, k| p + axes[k] * (h * axes[k].dot(dir).signum()))
            };
            let pa = support(a.position, &axes_a, ha, i, n);
            let pb = support(b.position, &axes_b, hb, j, -n);
            let (s, t) = closest_on_segments(pa, axes_a[i], ha, pb, axes_b[j], hb);
            let (qa, qb) = (pa + axes_a[i] * s, pb + axes_b[j] * t);
            out.push(Contact {
                a: ib,
                b: Some(ia),
                point: (qa + qb) * 0.5,
                normal: n,
                depth: -chosen.separation,
            });
        }
    }
}

/// Parameters (s, t) in [-ha, ha] x [-hb, hb] of the closest points of the segments
/// pa + s ea and pb + t eb (unit directions).
fn closest_on_segments(pa: DVec3, ea: DVec3, ha: f64, pb: DVec3, eb: DVec3, hb: f64) -> (f64, f64) {
    let r = pa - pb;
    let (b, c, f) = (ea.dot(eb), ea.dot(r), eb.dot(r));
    let denom = 1.0 - b * b;
    let mut s = if denom > 1e-12 {
        ((b * f - c) / denom).clamp(-ha, ha)
    } else {
        0.0
    };
    let t = (b * s + f).clamp(-hb, hb);
    s = (b * t - c).clamp(-ha, ha);
    (s, t)
}

/// Contacts of the incident cube `inc` against face `k` of the reference cube `rf`, whose
/// outward normal towards `inc` is `n`.
#[allow(clippy::too_many_arguments)]
fn face_contacts(
    i_inc: usize,
    inc: &Body,
    h_inc: f64,
    axes_inc: &[DVec3; 3],
    i_ref: usize,
    rf: &Body,
    h_ref: f64,
    axes_ref: &[DVec3; 3],
    k: usize,
    n: DVec3,
    margin: f64,
    (out, clipping): (&mut Vec<Contact>, &mut Clipping),
) {
    let face_centre = rf.position + n * h_ref;
    let (u, v) = (axes_ref[(k + 1) % 3], axes_ref[(k + 2) % 3]);
    // The incident face: the one whose outward normal is most opposed to n.
    let m = (0..3)
        .max_by(|&x, &y| {
            axes_inc[x]
                .dot(n)
                .abs()
                .total_cmp(&axes_inc[y].dot(n).abs())
        })
        .expect("three axes");
    let facing = -axes_inc[m] * axes_inc[m].dot(n).signum();
    let centre = inc.position + facing * h_inc;
    let (t1, t2) = (axes_inc[(m + 1) % 3] * h_inc, axes_inc[(m + 2) % 3] * h_inc);
    let Clipping {
        polygon,
        clipped,
        points,
    } = clipping;
    polygon.clear();
    polygon.extend([
        centre + t1 + t2,
        centre - t1 + t2,
        centre - t1 - t2,
        centre + t1 - t2,
    ]);
    for (dir, limit) in [(u, h_ref), (-u, h_ref), (v, h_ref), (-v, h_ref)] {
        clip(polygon, dir, dir.dot(rf.position) + limit, clipped);
        std::mem::swap(polygon, clipped);
        if polygon.is_empty() {
            return;
        }
    }
    points.clear();
    points.extend(polygon.iter().filter_map(|&p| {
        let separation = n.dot(p - face_centre);
        (separation <= margin).then_some((p - n * (0.5 * separation), -separation))
    }));
    reduce_to_four(points);
    out.extend(points.iter().map(|&(point, depth)| Contact {
        a: i_inc,
        b: Some(i_ref),
        point,
        normal: n,
        depth,
    }));
}

/// Sutherland-Hodgman: the part of the polygon where dir . p <= offset, into `out`.
fn clip(polygon: &[DVec3], dir: DVec3, offset: f64, out: &mut Vec<DVec3>) {
    out.clear();
    let next = polygon.iter().skip(1).chain(polygon.first());
    for (&p, &q) in polygon.iter().zip(next) {
        let (dp, dq) = (dir.dot(p) - offset, dir.dot(q) - offset);
        if dp <= 0.0 {
            out.push(p);
        }
        if (dp < 0.0) != (dq < 0.0) && (dp - dq).abs() > 1e-15 {
            out.push(p + (q - p) * (dp / (dp - dq)));
        }
    }
}

/// Keeps at most four points: the deepest, then each time the one furthest from those kept.
fn reduce_to_four(points: &mut Vec<(DVec3, f64)>) {
    if points.len() <= 4 {
        return;
    }
    let deepest = points
        .iter()
        .copied()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("more than four points");
    let mut kept = [deepest; 4];
    for n in 1..4 {
        let far = |p: &(DVec3, f64)| {
            kept[..n]
                .iter()
                .map(|k| k.0.distance_squared(p.0))
                .fold(f64::INFINITY, f64::min)
        };
        kept[n] = points
            .iter()
            .copied()
            .max_by(|a, b| far(a).total_cmp(&far(b)))
            .expect("more than four points");
    }
    points.clear();
    points.extend(kept);
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    fn cube(x: f64, y: f64, z: f64) -> Body {
        Body::cube(DVec3::new(x, y, z), 0.5, 1.0, [1.0; 3])
    }

    /// Sweep and prune keeps every pair the bounding-sphere test would: random heaps of cubes
    /// and balls, moving and at rest, spread along each axis in turn.
    #[test]
    fn broad_phase_keeps_every_pair_the_sphere_test_keeps() {
        let mut rng = crate::reference::Rng::new(9);
        for (round, spread) in [
            [8.0, 1.0, 1.0],
            [1.0, 8.0, 1.0],
            [1.0, 1.0, 8.0],
            [2.0, 2.0, 2.0],
        ]
        .into_iter()
        .enumerate()
        {
            let mut v = || DVec3::new(rng.next_f64(), rng.next_f64(), rng.next_f64()) - 0.5;
            let bodies: Vec<Body> = (0..150)
                .map(|k| {
                    let p = v() * DVec3::from(spread);
                    let moving = v() * 20.0 * (k % 3) as f64;
                    if k % 10 == 0 {
                        Body::ball(p, 0.3, 1.0, moving)
                    } else {
                        let mut b = Body::cube(p, 0.1 + 0.05 * (k % 4) as f64, 1.0, [1.0; 3]);
                        b.velocity = moving;
                        b
                    }
                })
                .collect();
            let travel: Vec<f64> = bodies.iter().map(|b| b.velocity.length() / 60.0).collect();
            let pairs = close_pairs(&bodies, &travel, 0.01);
            assert!(pairs.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
            let mut kept = 0;
            for i in 0..bodies.len() {
                for j in i + 1..bodies.len() {
                    let (a, b) = (&bodies[i], &bodies[j]);
                    let limit = a.reach() + b.reach() + 0.01 + travel[i] + travel[j];
                    if a.position.distance(b.position) <= limit {
                        kept += 1;
                        assert!(
                            pairs.binary_search(&(i, j)).is_ok(),
                            "round {round}: ({i}, {j})"
                        );
                    }
                }
            }
            // Spread along one axis, the sweep leaves out most of the n (n - 1) / 2 pairs.
            let all = bodies.len() * (bodies.len() - 1) / 2;
            let pruned = round == 3 || pairs.len() < all / 3;
            assert!(
                kept > 20 && pruned,
                "round {round}: {kept} kept, {} of {all}",
                pairs.len()
            );
        }
    }

    #[test]
    fn resting_cube_touches_ground_at_four_corners() {
        let c = find_contacts(&[cube(0.0, 0.499, 0.0)], 0.01, 0.0);
        assert_eq!(c.len(), 4);
        assert!(c
            .iter()
            .all(|c| c.b.is_none() && (c.depth - 0.001).abs() < 1e-12));
    }

    #[test]
    fn stacked_cubes_touch_at_four_points_with_upward_normal() {
        let bodies = [cube(0.0, 3.0, 0.0), cube(0.2, 3.999, 0.1)];
        let c = find_contacts(&bodies, 0.01, 0.0);
        assert_eq!(c.len(), 4, "{c:?}");
        for c in &c {
            // The normal pushes the upper cube (a) up, away from the lower one.
            let upper = if c.a == 1 { 1.0 } else { -1.0 };
            assert!((c.normal.y * upper - 1.0).abs() < 1e-12, "{c:?}");
            assert!((c.depth - 0.001).abs() < 1e-9);
            // Points lie in the overlap of the two faces.
            assert!(c.point.x >= -0.3 - 1e-9 && c.point.x <= 0.5 + 1e-9);
        }
    }

    #[test]
    fn separated_cubes_have_no_contact_and_tilted_ones_do() {
        assert!(find_contacts(&[cube(0.0, 5.0, 0.0), cube(1.02, 5.0, 0.0)], 0.01, 0.0).is_empty());
        let mut tilted = cube(0.0, 5.0, 0.0);
        tilted.orientation = DQuat::from_rotation_z(0.3) * DQuat::from_rotation_x(0.2);
        let c = find_contacts(&[tilted, cube(0.95, 5.0, 0.0)], 0.01, 0.0);
        assert!(!c.is_empty());
        for c in &c {
            assert!(c.depth > 0.0 && c.depth < 0.3, "{c:?}");
            assert!((c.normal.length() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn ball_hits_cube_face() {
        let ball = Body::ball(DVec3::new(-0.7, 5.0, 0.0), 0.25, 1.0, DVec3::ZERO);
        let c = find_contacts(&[cube(0.0, 5.0, 0.0), ball], 0.01, 0.0);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].a, c[0].b), (1, Some(0)));
        assert!((c[0].normal - DVec3::NEG_X).length() < 1e-12);
        assert!((c[0].depth - 0.05).abs() < 1e-12);
    }
}
