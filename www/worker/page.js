// www/worker.html: the wall runs in a dedicated Worker (www/worker/wall.js) that draws into this
// page's canvas, moved there with `transferControlToOffscreen()`. This thread only forwards
// input (drag to orbit, wheel to zoom, click or tap to throw or push, keys) and shows what the
// Worker reports, so it stays responsive however long a frame takes: the page's own frame
// counter keeps ticking while the wall computes.

const $ = (id) => document.getElementById(id);
const backend = new URLSearchParams(location.search).get("backend") ?? "auto";
const canvas = $("wall-canvas");
const size = () => {
  const width = Math.max(320, Math.round($("wall-view").clientWidth * (window.devicePixelRatio || 1)));
  return { width, height: Math.round((width * 9) / 16) };
};
const worker = new Worker(new URL("./wall.js", import.meta.url), { type: "module" });
const send = (type, fields = {}, transfer = []) => worker.postMessage({ type, ...fields }, transfer);
const offscreen = canvas.transferControlToOffscreen();
send("start", { backend, canvas: offscreen, ...size() }, [offscreen]);

const fail = (message) => {
  $("wall-error").textContent = message;
  $("wall-error").hidden = false;
};
let running = false;
worker.onmessage = ({ data }) => {
  if (data.type === "ready") {
    $("wall-status").textContent = `The wall is simulated and drawn in a Worker, on ${data.backend === "webgpu" ? "WebGPU" : "WebGL2"} (${data.adapter}).`;
    for (const id of ["wall-run", "wall-step"]) $(id).disabled = false;
  } else if (data.type === "frame") {
    const s = data.stats;
    $("wall-stats").textContent = `frame ${s.frame} · ${s.bodies} bodies · ${s.contacts} contacts · ${s.frameMs.toFixed(1)} ms in the Worker · ${s.throws} balls thrown, ${s.pushes} cubes pushed`;
    Object.assign($("wall-stats").dataset, { frame: s.frame, throws: s.throws, pushes: s.pushes });
  } else if (data.type === "error") {
    running = false;
    $("wall-run").textContent = "Start";
    fail(data.message);
  }
};
worker.onerror = (e) => fail(`the Worker failed: ${e.message}`);

$("wall-run").addEventListener("click", () => {
  running = !running;
  $("wall-run").textContent = running ? "Pause" : "Start";
  $("wall-error").hidden = true;
  send("run", { on: running });
});
$("wall-step").addEventListener("click", () => send("step"));
window.addEventListener("resize", () => send("resize", size()));

// A click, a tap or a key at the canvas point (x, y) in -1..1 (y up).
const act = (x, y) => send("act", { x, y, push: $("wall-click").value === "push" });
const keys = {
  ArrowLeft: [0.1, 0, 1], ArrowRight: [-0.1, 0, 1], ArrowUp: [0, 0.05, 1], ArrowDown: [0, -0.05, 1],
  "+": [0, 0, 0.9], "=": [0, 0, 0.9], "-": [0, 0, 1 / 0.9],
};
canvas.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  if (keys[e.key]) { const [yaw, pitch, zoom] = keys[e.key]; send("orbit", { yaw, pitch, zoom }); }
  else if (e.key === " " || e.key === "Enter") act(0, 0);
  else return;
  e.preventDefault();
});
let drag = null;
canvas.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, moved: 0 }; canvas.setPointerCapture(e.pointerId); });
canvas.addEventListener("pointermove", (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  drag.moved += Math.abs(dx) + Math.abs(dy);
  drag.x = e.clientX; drag.y = e.clientY;
  send("orbit", { yaw: -dx * 0.008, pitch: dy * 0.008, zoom: 1 });
});
canvas.addEventListener("pointerup", (e) => {
  const d = drag;
  drag = null;
  if (!d || d.moved > 4) return;
  const r = canvas.getBoundingClientRect();
  act(((e.clientX - r.left) / r.width) * 2 - 1, 1 - ((e.clientY - r.top) / r.height) * 2);
});
canvas.addEventListener("wheel", (e) => {
  e.preventDefault();
  send("orbit", { yaw: 0, pitch: 0, zoom: Math.exp(e.deltaY * 0.001) });
}, { passive: false });

// The page's own frames: they keep coming while the Worker computes.
let pageFrames = 0;
const tick = () => {
  pageFrames++;
  if (pageFrames % 15 === 0) {
    $("page-frames").textContent = `This page has drawn ${pageFrames} frames of its own since it opened.`;
    $("page-frames").dataset.frames = pageFrames;
  }
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
