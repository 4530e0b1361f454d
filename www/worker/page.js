// www/worker.html: the wall runs in a dedicated Worker (www/worker/wall.js) that draws into this
// page's canvas, moved there with `transferControlToOffscreen()`. This thread only forwards
// input (drag to orbit, wheel to zoom, click or tap to throw or push, keys) and shows what the
// Worker reports, so it stays responsive however long a frame takes: the page's own frame
// counter keeps ticking while the wall computes.

import { wallGestures } from "../gestures.js";

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
wallGestures(canvas, { orbit: (yaw, pitch, zoom) => send("orbit", { yaw, pitch, zoom }), act });

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
