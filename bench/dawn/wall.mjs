// The collapsing wall side by side with Rapier (npm @dimforge/rapier3d-compat 0.21, benchmark
// only) in ONE Node process: texla's pkg/ through Dawn (its GPU solve, its CPU contacts and
// assembly in wasm) and Rapier on the CPU (wasm), the same cubes (edge 0.5 m, 10 kg, friction
// 0.6, restitution 0, dt 1/60, gravity 9.81) at the same places, undisturbed.
//
//   node bench/dawn/wall.mjs [--frames 1800] [--walls 1,10] [--presets texla,awake,seed,soft] [--pkg DIR]
//        [--out FILE.json] [--md FILE.md] [--dawn-flags "a;b"] [--require-gpu] [--paired]
//
// For each scene (1 wall = 60 cubes, 10 = 600, 100 = 6000: `--walls 1,10,100`) and each path
// (texla's default, whose resting islands fall asleep; the same with sleeping off ("awake"),
// every frame solved; the seed's
// preset at 1 wall; Rapier at its default 4 solver iterations): ms per step (median, and the
// slowest; texla: the whole `wall.step()`, contacts to read-back, no drawing; Rapier:
// `world.step()`), and
// over the run: drift (largest distance of a cube centre from its start, % of the edge),
// deepest penetration (% of the edge; texla's deepest contact, Rapier's from its cubes' poses
// every 10th frame), the fastest cube centre after 2 s (mm/s), and the most
// the energy rose above its start (J). Rapier runs twice: as it comes (resting bodies fall
// asleep) and with sleeping off. Then texla's default wall is hit by the page's ball (thrown
// through the view's centre once the run is over): ms per step over the 300 frames after the
// throw. With --paired, each scene also steps texla (sleeping off) and Rapier (never sleeping)
// in turns, a frame each, and gives the median per-frame ratio: the machine's speed drifts
// between runs by more than the difference measured. Writes $OUT/wall-bench.{json,md} where
// OUT is set.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { arg, findPkg, openTexla } from "./dawn.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const frames = Number(arg("frames", "1800"));
const scenes = String(arg("walls", "1,10")).split(",").map(Number);
const presets = String(arg("presets", "texla,awake,seed")).split(",");
const outDir = process.env.OUT || here;
const outJson = arg("out", path.join(outDir, "wall-bench.json"));
const outMd = arg("md", outJson.replace(/\.json$/, "") + ".md");
const { gpu, adapterInfo } = await openTexla({
  pkgDir: findPkg(here),
  flags: arg("dawn-flags", process.env.DAWN_FLAGS || ""),
  requireGpu: process.argv.includes("--require-gpu"),
});
const RAPIER = (await import("@dimforge/rapier3d-compat")).default;
await RAPIER.init();

const EDGE = 0.5, MASS = 10, G = 9.81;
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

/** Tracks one run's stability from the cube centres and velocities of each frame. */
function tracker(start, cubes) {
  const t = { drift: 0, fastest: 0, rise: -Infinity, penetration: 0, frame: 0 };
  t.add = (pos, vel, energy, energy0, penetration) => {
    for (let c = 0; c < cubes; c++) {
      const d = Math.hypot(pos[3 * c] - start[3 * c], pos[3 * c + 1] - start[3 * c + 1], pos[3 * c + 2] - start[3 * c + 2]);
      t.drift = Math.max(t.drift, d);
      if (t.frame >= 120) t.fastest = Math.max(t.fastest, Math.hypot(vel[3 * c], vel[3 * c + 1], vel[3 * c + 2]));
    }
    t.rise = Math.max(t.rise, energy - energy0);
    t.penetration = Math.max(t.penetration, penetration);
    t.frame++;
  };
  t.result = () => ({ driftPct: (100 * t.drift) / EDGE, penetrationPct: (100 * t.penetration) / EDGE, fastestMmS: 1000 * t.fastest, energyRiseJ: t.rise });
  return t;
}

const PATHS = {
  texla: "texla default (accelerated, 80, blocks, sleeping)",
  awake: "texla default, sleeping off",
  seed: "texla seed preset (Jacobi, 2n, dense)",
  soft: "texla soft step (4 substeps, blocks, sleeping off)",
};

async function texlaRun(walls, preset) {
  const wall = gpu.wall(1, walls);
  wall.preset(preset === "seed" ? "seed" : "texla");
  wall.setSleeping(preset === "texla");
  if (preset === "soft") wall.setSolver("soft");
  const start = wall.positions();
  const cubes = start.length / 3;
  const energy0 = wall.stats().energy;
  const track = tracker(start, cubes);
  const ms = [];
  const parts = [];
  const count = preset === "seed" ? Math.min(frames, 60) : frames;
  for (let f = 0; f < count; f++) {
    const t0 = performance.now();
    const s = await wall.step();
    ms.push(performance.now() - t0);
    parts.push(s.parts);
    track.add(wall.positions(), wall.velocities(), s.energy, energy0, s.penetration);
  }
  const s = wall.stats();
  // The median of each part of the frame (`stats().parts`), where its milliseconds went.
  const partMs = Object.fromEntries(Object.keys(parts[0]).map((k) => [k, median(parts.map((p) => p[k]))]));
  const row = { path: PATHS[preset], cubes, frames: count, msPerStep: median(ms), slowestMs: Math.max(...ms), contacts: s.contacts, asleep: s.asleep, iterations: s.iterations, partMs, ...track.result() };
  if (preset !== "texla") return [row];
  wall.throwBall(0, 0);
  const hit = [];
  for (let f = 0; f < 300; f++) {
    const t0 = performance.now();
    await wall.step();
    hit.push(performance.now() - t0);
  }
  const none = { driftPct: NaN, penetrationPct: NaN, fastestMmS: NaN, energyRiseJ: NaN };
  return [row, { path: "texla default, 300 frames after the ball hits", cubes, frames: 300, msPerStep: median(hit), slowestMs: Math.max(...hit), ...none }];
}

/** Rapier's world of the same cubes at `start` (x y z per cube), and its bodies. */
function rapierWorld(start, canSleep) {
  const world = new RAPIER.World({ x: 0, y: -G, z: 0 });
  world.timestep = 1 / 60;
  world.createCollider(RAPIER.ColliderDesc.cuboid(500, 0.5, 500).setTranslation(0, -0.5, 0).setFriction(0.6).setRestitution(0));
  const cubes = start.length / 3;
  const bodies = [];
  for (let c = 0; c < cubes; c++) {
    const body = world.createRigidBody(RAPIER.RigidBodyDesc.dynamic().setTranslation(start[3 * c], start[3 * c + 1], start[3 * c + 2]).setCanSleep(canSleep));
    world.createCollider(RAPIER.ColliderDesc.cuboid(EDGE / 2, EDGE / 2, EDGE / 2).setDensity(MASS / EDGE ** 3).setFriction(0.6).setRestitution(0), body);
    bodies.push(body);
  }
  return { world, bodies };
}

/** A Rapier body's centre and its three axes (unit vectors, world frame). */
function pose(body) {
  const { x, y, z, w } = body.rotation();
  const turn = ([vx, vy, vz]) => {
    const [tx, ty, tz] = [2 * (y * vz - z * vy), 2 * (z * vx - x * vz), 2 * (x * vy - y * vx)];
    return [vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx)];
  };
  const p = body.translation();
  return { p: [p.x, p.y, p.z], axes: [turn([1, 0, 0]), turn([0, 1, 0]), turn([0, 0, 1])] };
}

/** How deep a cube's lowest corner lies below the ground, m (0 above it). */
function belowGround({ p, axes }) {
  return Math.max(0, (EDGE / 2) * axes.reduce((s, a) => s + Math.abs(a[1]), 0) - p[1]);
}

/** How deep two cubes overlap, m: the least overlap along their six face normals (0 apart; an
 *  upper bound of the depth where an edge-edge axis would separate them less). */
function cubeOverlap(one, two) {
  const d = [0, 1, 2].map((k) => two.p[k] - one.p[k]);
  const dot = (u, v) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  const reach = (axes, n) => (EDGE / 2) * axes.reduce((s, a) => s + Math.abs(dot(a, n)), 0);
  const least = Math.min(...[...one.axes, ...two.axes].map((n) => reach(one.axes, n) + reach(two.axes, n) - Math.abs(dot(d, n))));
  return Math.max(0, least);
}

function rapierRun(start, canSleep) {
  const { world, bodies } = rapierWorld(start, canSleep);
  const cubes = start.length / 3;
  const inertia = (MASS * EDGE * EDGE) / 6;
  const energy = () => bodies.reduce((e, b) => {
    const v = b.linvel(), w = b.angvel(), p = b.translation();
    return e + 0.5 * MASS * (v.x * v.x + v.y * v.y + v.z * v.z) + 0.5 * inertia * (w.x * w.x + w.y * w.y + w.z * w.z) + MASS * G * p.y;
  }, 0);
  const energy0 = energy();
  const track = tracker(start, cubes);
  const ms = [];
  const pos = new Float64Array(3 * cubes), vel = new Float64Array(3 * cubes);
  for (let f = 0; f < frames; f++) {
    const t0 = performance.now();
    world.step();
    ms.push(performance.now() - t0);
    let deepest = 0;
    if (f % 10 === 0) {
      // From the cubes' poses, not the manifolds' contactDist: Rapier (>= 0.35) keeps the
      // manifolds of pairs that did not move, with their old distances.
      world.forEachCollider((c) => {
        world.contactPairsWith(c, (other) => {
          const [a, b] = [c.parent(), other.parent()];
          const depth = a && b ? cubeOverlap(pose(a), pose(b)) : a || b ? belowGround(pose(a ?? b)) : 0;
          deepest = Math.max(deepest, depth);
        });
      });
    }
    bodies.forEach((b, c) => {
      const p = b.translation(), v = b.linvel();
      [pos[3 * c], pos[3 * c + 1], pos[3 * c + 2]] = [p.x, p.y, p.z];
      [vel[3 * c], vel[3 * c + 1], vel[3 * c + 2]] = [v.x, v.y, v.z];
    });
    track.add(pos, vel, energy(), energy0, deepest);
  }
  return { path: `Rapier ${RAPIER.version()} (${world.integrationParameters.numSolverIterations} iterations${canSleep ? "" : ", never sleeping"})`, cubes, frames, msPerStep: median(ms), slowestMs: Math.max(...ms), ...track.result() };
}

/** texla's wall with sleeping off and Rapier's never-sleeping world of the same cubes, stepped
 *  in turns frame by frame (which goes first alternates), so that both see the same moments of
 *  a machine whose speed drifts: the median of each, and of the per-frame ratio. */
async function pairedRun(walls) {
  const wall = gpu.wall(1, walls);
  wall.preset("texla");
  wall.setSleeping(false);
  const { world } = rapierWorld(wall.positions(), false);
  const timed = async (step) => {
    const t0 = performance.now();
    await step();
    return performance.now() - t0;
  };
  const texla = [], rapier = [], ratio = [];
  for (let f = 0; f < frames; f++) {
    let t, r;
    if (f % 2 === 0) {
      t = await timed(() => wall.step());
      r = await timed(() => world.step());
    } else {
      r = await timed(() => world.step());
      t = await timed(() => wall.step());
    }
    texla.push(t);
    rapier.push(r);
    ratio.push(t / r);
  }
  return { cubes: 60 * walls, frames, texlaMs: median(texla), rapierMs: median(rapier), ratio: median(ratio) };
}

const rows = [];
const paired = [];
const save = () => {
  const md = [
    `# The wall: texla through Dawn beside Rapier (${new Date().toISOString()})`,
    "",
    `Adapter: ${JSON.stringify(adapterInfo)}; ${frames} frames of the undisturbed wall (the seed preset: 60 frames).`,
    "",
    "| cubes | path | ms per step, median / slowest | drift % edge | penetration % edge | fastest after 2 s, mm/s | energy rise, J | frames |",
    "|---:|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.cubes} | ${r.path} | ${r.msPerStep.toFixed(2)} / ${(r.slowestMs ?? NaN).toFixed(2)} | ${r.driftPct.toFixed(2)} | ${r.penetrationPct.toFixed(3)} | ${r.fastestMmS.toFixed(2)} | ${r.energyRiseJ.toFixed(2)} | ${r.frames} |`),
    "",
    "Where texla's milliseconds went (medians of each part of `stats().parts`; the CPU's parts in wasm, then the upload and the solve with its read-back):",
    "",
    "| cubes | path | contacts | assembly | step | layout | upload | solve | end |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.filter((r) => r.partMs).map((r) => `| ${r.cubes} | ${r.path} | ${["contacts", "assembly", "step", "layout", "upload", "solve", "end"].map((k) => r.partMs[k].toFixed(2)).join(" | ")} |`),
    ...(paired.length ? [
      "",
      "In turns (`--paired`): texla with sleeping off and Rapier never sleeping, one frame each, alternately first (medians):",
      "",
      "| cubes | texla, ms | Rapier, ms | texla / Rapier, per frame | frames |",
      "|---:|---:|---:|---:|---:|",
      ...paired.map((p) => `| ${p.cubes} | ${p.texlaMs.toFixed(2)} | ${p.rapierMs.toFixed(2)} | ${p.ratio.toFixed(3)} | ${p.frames} |`),
    ] : []),
  ].join("\n");
  fs.mkdirSync(path.dirname(outJson), { recursive: true });
  fs.writeFileSync(outJson, JSON.stringify({ adapter: adapterInfo, frames, rows, paired }, null, 1));
  fs.writeFileSync(outMd, md + "\n");
  return md;
};
// The GPU's clock rises only under load: 2 s of frames before anything is timed, so that the
// first path measured does not run on an idle GPU's clock (as bench.mjs warms up its products).
{
  const warm = gpu.wall(1, 1);
  warm.setSleeping(false);
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) await warm.step();
}
for (const walls of scenes) {
  for (const preset of presets.filter((p) => walls === 1 || p !== "seed")) {
    try {
      rows.push(...(await texlaRun(walls, preset)));
    } catch (e) {
      rows.push({ path: `texla ${preset}: ${e.message ?? e}`, cubes: 60 * walls, frames: 0, msPerStep: NaN, driftPct: NaN, penetrationPct: NaN, fastestMmS: NaN, energyRiseJ: NaN });
    }
    console.log(JSON.stringify(rows.at(-1)));
    save();
  }
  // Rapier puts resting bodies to sleep (then a step costs almost nothing), as texla does.
  for (const canSleep of [true, false]) {
    rows.push(rapierRun(gpu.wall(1, walls).positions(), canSleep));
    console.log(JSON.stringify(rows.at(-1)));
    save();
  }
  if (process.argv.includes("--paired")) {
    paired.push(await pairedRun(walls));
    console.log(JSON.stringify(paired.at(-1)));
    save();
  }
}
console.log(save());
