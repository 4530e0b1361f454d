// Wall frame times in headless Chromium, as the page runs them: on an animation frame,
// `wall.step()` (contacts, assembly, upload, solve, read-back, integration) and `wall.draw()` into
// a 640 x 360 canvas until the GPU has finished it,
// on both backends, at the page's default settings (the texla preset, sleeping islands on).
// Usage: node bench/browser/wall-frames.mjs [standing frames = 300] [frames after the ball = 300]
//        [walls = 1] [frames with sleeping off = min(standing, 120)] [backends = webgpu,webgl2]
// (10 or 100 walls: 600 or 6000 cubes; 0 frames after the ball: no throw)
// Prints, per backend, how many frames drew the wall (a backend skips a draw while the one before
// is not known to be done: WebGL2 learns of its fence only in a later task), and the median and
// slowest frame, with the medians of the step's parts and of the draw, of: the wall with
// sleeping off (every frame solved), the default wall from its first frame (awake until it falls
// asleep), and the frames after the ball hits the sleeping wall (the page's throw through the
// canvas centre).
import { onEachBackend } from "../../tests/e2e/browser.mjs";

const standing = Number(process.argv[2] ?? 300);
const after = Number(process.argv[3] ?? 300);
const walls = Number(process.argv[4] ?? 1);
const awakeFrames = Number(process.argv[5] ?? Math.min(standing, 120));
const backends = String(process.argv[6] ?? "webgpu,webgl2").split(",");
// Another build under the repository root to measure instead of pkg/ (an A/B): WALL_PKG=/dir/.
const pkg = process.env.WALL_PKG ?? "/pkg/";
// Counts the scene passes the page starts (WebGPU: the render pass labelled "scene"; WebGL2: its
// instanced draws, which only the scene makes), to tell a frame drawn from one skipped.
const countDraws = () => {
  window.scenePasses = 0;
  const wrap = (proto, name, isScene) => {
    const f = proto?.[name];
    if (f) proto[name] = function (...args) { if (isScene(args)) window.scenePasses++; return f.apply(this, args); };
  };
  wrap(globalThis.GPUCommandEncoder?.prototype, "beginRenderPass", ([d]) => d?.label === "scene");
  wrap(globalThis.WebGL2RenderingContext?.prototype, "drawArraysInstanced", () => true);
};
const rows = (await onEachBackend(async ({ backend, standing, after, walls, awakeFrames, pkg }) => {
    const texla = await import(`${pkg}texla.js`);
    await texla.default();
    const gpu = await texla.Gpgpu.create(backend);
    // Each frame starts on an animation frame, as the page's loop does (not timed): in a tight
    // loop WebGL2 would skip nearly every draw, its last fence not yet seen as done.
    const frame = async (wall) => {
      await new Promise(requestAnimationFrame);
      const t = performance.now();
      const s = await wall.step();
      const passes = window.scenePasses;
      wall.draw();
      await gpu.finish(); // the draw too, so that no frame's work is left to the next
      return { ms: performance.now() - t, s, drawn: window.scenePasses > passes };
    };
    const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
    const summary = (name, runs) => {
      const ms = runs.map((r) => r.ms);
      const solved = runs.filter((r) => r.s.contacts > 0).length;
      const drawn = runs.filter((r) => r.drawn).length;
      // Medians of the step's parts (`stats().parts`) and of the draw (the rest of the frame).
      const parts = Object.fromEntries(Object.keys(runs[0].s.parts).map((k) => [k, median(runs.map((r) => r.s.parts[k]))]));
      parts.draw = median(runs.map((r) => r.ms - r.s.frameMs));
      return { backend, run: name, walls, frames: ms.length, solved, drawn, medianMs: median(ms), slowestMs: Math.max(...ms), meanMs: ms.reduce((a, b) => a + b, 0) / ms.length, parts };
    };
    const out = [];
    const wall = gpu.wall(1, walls);
    const canvas = wall.canvas();
    [canvas.width, canvas.height] = [640, 360];
    await frame(wall); // compiles the kernels
    wall.reset();
    wall.setSleeping(false);
    const awake = [];
    for (let f = 0; f < awakeFrames; f++) awake.push(await frame(wall));
    if (awakeFrames > 0) out.push(summary("default solver, sleeping off", awake));
    wall.reset();
    wall.setSleeping(true);
    const rest = [];
    for (let f = 0; f < standing; f++) rest.push(await frame(wall));
    const slept = rest.findIndex((r) => r.s.asleep === r.s.bodies);
    out.push(summary(`default, frames 1-${standing} of the standing wall (${slept < 0 ? "not asleep yet" : `asleep after ${slept + 1}`})`, rest));
    if (slept >= 0 && slept + 1 < standing) out.push(summary(`default, frames ${slept + 2}-${standing}, asleep`, rest.slice(slept + 1)));
    if (after > 0) {
      wall.throwBall(0, 0);
      const hit = [];
      for (let f = 0; f < after; f++) hit.push(await frame(wall));
      out.push(summary(`default, ${after} frames after the ball`, hit));
    }
    return out;
}, { standing, after, walls, awakeFrames, pkg }, backends, countDraws)).flat();
console.log(`wall frames (step + draw, 640 x 360), headless Chromium, ${new Date().toISOString()}`);
console.log("| backend | walls | run | frames (solved, drawn) | median ms | mean ms | slowest ms | medians: CPU parts (contacts, LCP, step, layout, end) / upload / solve and read-back / draw |");
console.log("|---|---:|---|---:|---:|---:|---:|---|");
for (const r of rows) {
  const p = r.parts, f = (v) => v.toFixed(1);
  const parts = `${[p.contacts, p.assembly, p.step, p.layout, p.end].map(f).join(", ")} / ${f(p.upload)} / ${f(p.solve)} / ${f(p.draw)}`;
  console.log(`| ${r.backend} | ${r.walls} | ${r.run} | ${r.frames} (${r.solved}, ${r.drawn}) | ${r.medianMs.toFixed(1)} | ${r.meanMs.toFixed(1)} | ${r.slowestMs.toFixed(1)} | ${parts} |`);
}
console.log(JSON.stringify(rows));
