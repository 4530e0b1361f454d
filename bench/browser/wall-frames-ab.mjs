// Wall frames of two or more builds side by side on a shared machine: pages alternate between
// the builds' pkg/ folders round after round, so load from other work falls on each alike.
// A frame is wall-frames.mjs's (`await wall.step(); wall.draw(); await gpu.finish()`, 640 x 360);
// each page times 30 frames of one wall, awake (sleeping off, from the first frame) or asleep.
// Usage: node bench/browser/wall-frames-ab.mjs awake|asleep rounds backend label:pkgdir ...
// e.g.   node bench/browser/wall-frames-ab.mjs awake 5 webgpu base:/tmp/pkg-main new:pkg
import os from "node:os";
import { serve, launch } from "../../tests/e2e/browser.mjs";

const [mode, rounds, backend, ...builds] = process.argv.slice(2);
const pkgs = builds.map((b) => b.split(":"));
const srv = await serve({ mounts: Object.fromEntries(pkgs.map(([label, dir]) => [`/pkg-${label}/`, dir])) });
const browser = await launch();
const medians = Object.fromEntries(pkgs.map(([label]) => [label, []]));
try {
  for (let r = 0; r < Number(rounds); r++) {
    for (const [label] of pkgs) {
      const page = await browser.newPage();
      await page.goto(`${srv.url}www/style.css`);
      medians[label].push(await page.evaluate(async ({ label, backend, mode }) => {
        const texla = await import(`/pkg-${label}/texla.js`);
        await texla.default();
        const gpu = await texla.Gpgpu.create(backend);
        const wall = gpu.wall(1);
        Object.assign(wall.canvas(), { width: 640, height: 360 });
        const frame = async () => {
          const t = performance.now();
          const s = await wall.step();
          wall.draw();
          await gpu.finish();
          return { ms: performance.now() - t, s };
        };
        await frame(); // compiles the kernels
        wall.reset();
        wall.setSleeping(mode === "asleep");
        for (let f = 0; mode === "asleep" && f < 300; f++) {
          const { s } = await frame();
          if (s.asleep === s.bodies) break;
        }
        const ms = [];
        for (let f = 0; f < 30; f++) ms.push((await frame()).ms);
        return ms.sort((a, b) => a - b)[15];
      }, { label, backend, mode }));
      await page.close();
    }
  }
} finally {
  await browser.close();
  srv.close();
}
console.log(`${mode} wall frames on ${backend}, median of 30 per page, pages alternating, ${new Date().toISOString()}, load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
for (const [label, ms] of Object.entries(medians)) console.log(`| ${label} | ${ms.map((m) => m.toFixed(1)).join(" | ")} |`);
