// The wall's gestures on its canvas, one definition for the page's wall (wall.js) and the
// Worker example (worker/page.js): arrows orbit, + and − zoom, Space and Enter act at the centre;
// a drag orbits, the wheel zooms, a click or tap (no drag) acts at its point. `orbit(yaw, pitch,
// zoom)` turns the camera, `act(x, y)` throws or pushes at the canvas point (x, y) in -1..1 (y
// up), `after()` runs after each camera change (the page redraws a paused wall).

const KEYS = {
  ArrowLeft: [0.1, 0, 1], ArrowRight: [-0.1, 0, 1], ArrowUp: [0, 0.05, 1], ArrowDown: [0, -0.05, 1],
  "+": [0, 0, 0.9], "=": [0, 0, 0.9], "-": [0, 0, 1 / 0.9],
};

export function wallGestures(canvas, { orbit, act, after = () => {} }) {
  canvas.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (KEYS[e.key]) orbit(...KEYS[e.key]);
    else if (e.key === " " || e.key === "Enter") act(0, 0);
    else return;
    e.preventDefault();
    e.stopPropagation();
    after();
  });
  let drag = null;
  canvas.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, moved: 0 }; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    drag.moved += Math.abs(dx) + Math.abs(dy);
    drag.x = e.clientX; drag.y = e.clientY;
    orbit(-dx * 0.008, dy * 0.008, 1);
    after();
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
    orbit(0, 0, Math.exp(e.deltaY * 0.001));
    after();
  }, { passive: false });
}
