// The wall of www/worker.html, simulated and drawn in this dedicated Worker: the page moved its
// canvas here (`transferControlToOffscreen()`), and texla draws into it (option `canvas` of
// `Gpgpu.create`: on WebGL2 the context computes in that canvas, on WebGPU its 2D context shows
// the frames). The page's thread only forwards input, so it stays responsive while a frame
// takes long. Messages from the page (www/worker/page.js), by `type`:
//   start { backend, canvas, width, height }  opens the GPU on `canvas` and draws the wall
//   run { on }                                 starts or pauses the frames
//   step                                       one frame, while paused
//   orbit { yaw, pitch, zoom }                 turns and zooms the camera
//   act { x, y, push }                         throws the ball at (x, y) in -1..1, or pushes a cube
//   resize { width, height }                   the canvas's new size in pixels
// To the page: ready { backend, adapter }, frame { stats }, error { message }.
import init, { Gpgpu } from "../../pkg/texla.js";

let wall = null;
let canvas = null;
let running = false;

const post = (type, fields = {}) => self.postMessage({ type, ...fields });
const fail = (e) => post("error", { message: e?.message ?? String(e) });
// A frame abandoned by Pause (wall.cancel()) rejects with this; it is no failure.
const abandoned = (e) => /cancelled or the wall reset/.test(e?.message ?? "");
// The Worker's own animation frames where it has them (Chromium does), else a timer.
const nextFrame = self.requestAnimationFrame ? (f) => self.requestAnimationFrame(f) : (f) => setTimeout(f, 16);
const stats = () => {
  const s = wall.stats();
  return { frame: s.frame, bodies: s.bodies, contacts: s.contacts, frameMs: s.frameMs, throws: s.throws, pushes: s.pushes };
};
const frame = async () => {
  await wall.step();
  wall.draw();
  post("frame", { stats: stats() });
};
const loop = async () => {
  if (!running) return;
  try {
    await frame();
  } catch (e) {
    if (!abandoned(e)) { running = false; fail(e); return; }
  }
  nextFrame(loop);
};
const redraw = () => { if (!running) wall.draw(); };

const handlers = {
  async start(m) {
    await init();
    canvas = m.canvas;
    canvas.width = m.width;
    canvas.height = m.height;
    const gpu = await Gpgpu.create(m.backend, { canvas });
    wall = gpu.wall(1);
    wall.draw();
    post("ready", { backend: gpu.backend, adapter: gpu.capabilities().adapter });
    post("frame", { stats: stats() });
  },
  run(m) {
    running = m.on;
    if (running) loop(); else wall.cancel();
  },
  async step() {
    if (!running) await frame();
  },
  orbit(m) {
    wall.orbit(m.yaw, m.pitch, m.zoom);
    redraw();
  },
  act(m) {
    if (m.push) wall.push(m.x, m.y); else wall.throwBall(m.x, m.y);
    redraw();
    post("frame", { stats: stats() });
  },
  // A new size clears the canvas (even the same size would): only a new one is set, and drawn
  // at once.
  resize(m) {
    if (canvas.width === m.width && canvas.height === m.height) return;
    canvas.width = m.width;
    canvas.height = m.height;
    wall.draw();
  },
};

// One message at a time, in order (a "run" that comes while "start" opens the GPU waits for
// it); a running loop goes on by itself between them.
let queue = Promise.resolve();
self.onmessage = ({ data }) => {
  queue = queue.then(() => handlers[data.type](data)).catch((e) => { if (!abandoned(e)) fail(e); });
};
