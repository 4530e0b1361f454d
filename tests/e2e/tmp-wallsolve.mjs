import { onEachBackend } from "./browser.mjs";
const frames = Number(process.argv[2] ?? 20);
const walls = Number(process.argv[3] ?? 1);
const backends = String(process.argv[4] ?? "webgpu,webgl2").split(",");
const iters = Number(process.argv[5] ?? 0);
const rows = await onEachBackend(async ({ backend, frames, walls, iters }) => {
  globalThis.ITERS = iters;
  const texla = await import("/pkg/texla.js");
  await texla.default();
  const gpu = await texla.Gpgpu.create(backend);
  const wall = gpu.wall(1, walls);
  await wall.step(); wall.reset(); wall.setSleeping(false); if (globalThis.ITERS) wall.setIterations(globalThis.ITERS);
  const solve = [], frame = [], draw = [];
  for (let f = 0; f < frames; f++) {
    const s = await wall.step();
    solve.push(s.solveMs); frame.push(s.frameMs);
    const t = performance.now(); wall.draw(); await gpu.finish(); draw.push(performance.now() - t);
  }
  const med = (a) => a.sort((x, y) => x - y)[a.length >> 1].toFixed(1);
  return `${backend} walls ${walls}: solve ${med(solve)} frame ${med(frame)} draw ${med(draw)} ms (medians of ${frames})`;
}, { frames, walls, iters }, backends);
console.log(rows.join("\n"));
