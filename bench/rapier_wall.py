"""Rapier natively (PyPI `rapier3d`) on texla's standing wall, drift counted two ways.

The wall of `WallSpec::default()` (10 x 6 cubes, edge 0.5 m, 10 kg, friction 0.6, 2% gaps,
odd rows shifted a quarter edge), never sleeping, 60 Hz, Rapier's default integration
parameters, one thread. Prints, per run, the drift (the largest distance of a cube's centre,
% of the edge) from the start and from frame 60 on, how far the lowest cube sank into the
ground, and the fastest cube centre after 2 s; then the thrown ball (`BALL`: 0.5 m, 100 kg,
25 m/s into row 4 after 4 s), the deepest any body went into the floor.

    python3 bench/rapier_wall.py [--layout positions.json] [--frames 180,1800]

`--layout`: the cubes' centres as a JSON list of [x, y, z] (or texla's `wall.positions()`, a
flat list), else the wall's formula without texla's 0.25 mm jitter.
"""

import argparse
import json
import math

import numpy as np
import rapier3d as r

EDGE, HALF, MASS, FRICTION, GAP = 0.5, 0.25, 10.0, 0.6, 0.02


def layout(path):
    if path:
        data = json.load(open(path))
        flat = np.array(data, dtype=float).reshape(-1)
        return flat.reshape(-1, 3)[:, :3]
    pitch = EDGE * (1 + GAP)
    width = pitch * 10
    cubes = []
    for row in range(6):
        shift = 0.25 * EDGE if row % 2 == 1 else 0.0
        for k in range(10):
            cubes.append([-0.5 * width + (k + 0.5) * pitch + shift, EDGE * (row + 0.5), 0.0])
    return np.array(cubes)


def world_of(start):
    world = r.PhysicsWorld(gravity=(0.0, -9.81, 0.0))
    world.set_num_threads(1)
    world.add_collider(
        r.Collider.cuboid(500, 0.5, 500, translation=(0, -0.5, 0), friction=FRICTION, restitution=0.0)
    )
    density = MASS / EDGE**3
    bodies = [
        world.add_body(
            r.RigidBody.dynamic(translation=tuple(p), can_sleep=False),
            colliders=[r.Collider.cuboid(HALF, HALF, HALF, density=density, friction=FRICTION, restitution=0.0)],
        )
        for p in start
    ]
    return world, bodies


def lowest_corner(body, half):
    rot = np.array(body.rotation.to_matrix()).reshape(3, 3)
    return body.translation[1] - half * np.abs(rot[1]).sum()


def standing(start, frames):
    world, bodies = world_of(start)
    rb = world.rigid_bodies
    positions = lambda: np.array([list(rb[b].translation) for b in bodies])
    first, settled, sank, fastest = positions(), None, 0.0, 0.0
    for f in range(frames):
        world.step()
        sank = max(sank, -min(lowest_corner(rb[b], HALF) for b in bodies))
        if f == 59:
            settled = positions()
        if f >= 120:
            fastest = max(fastest, max(np.linalg.norm(list(rb[b].linvel)) for b in bodies))
    now = positions()
    drift = lambda since: 100 * np.linalg.norm(now - since, axis=1).max() / EDGE
    return drift(first), drift(settled), 100 * sank / EDGE, 1000 * fastest


def knocked(start):
    world, bodies = world_of(start)
    rb = world.rigid_bodies
    for _ in range(240):
        world.step()
    radius, mass, speed = 0.5, 100.0, 25.0
    ball = world.add_body(
        r.RigidBody.dynamic(translation=(0.0, 2.0, -3.0), linvel=(0.0, 0.0, speed), can_sleep=False),
        colliders=[r.Collider.ball(radius, density=mass / (4 / 3 * math.pi * radius**3), friction=FRICTION, restitution=0.0)],
    )
    deepest = 0.0
    for _ in range(180):
        world.step()
        low = min(min(lowest_corner(rb[b], HALF) for b in bodies), rb[ball].translation[1] - radius)
        deepest = min(deepest, low)
    tops = sorted(round(rb[b].translation[1], 2) for b in bodies[50:60])
    return 100 * deepest / EDGE, tops


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--layout")
    parser.add_argument("--frames", default="180,1800")
    args = parser.parse_args()
    start = layout(args.layout)
    p = r.PhysicsWorld().integration_parameters
    print(
        f"# Rapier {r.__version__} natively, one thread: {p.num_solver_iterations} substeps, "
        f"{p.num_internal_pgs_iterations} soft + {p.num_internal_stabilization_iterations} rigid sweeps, "
        f"contacts {p.contact_softness}, on fixed bodies {p.static_contact_softness}, "
        f"allowed error {p.allowed_linear_error():.4f} m, friction in the soft sweep {p.friction_in_bias_pass}"
    )
    for frames in [int(f) for f in args.frames.split(",")]:
        d0, d1, sank, fastest = standing(start, frames)
        print(
            f"{frames} frames: drift from the start {d0:.3f}% edge, from frame 60 {d1:.4f}%, "
            f"the lowest cube {sank:.3f}% into the ground, fastest centre after 2 s {fastest:.2f} mm/s"
        )
    deepest, tops = knocked(start)
    print(f"the ball after 4 s: deepest body {deepest:.1f}% of the edge into the floor, top row y {tops}")


if __name__ == "__main__":
    main()
