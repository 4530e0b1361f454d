// The Runge-Kutta cars of the SIMD-optimization paper (§1.4 item 2, Fig. 6): five cars, bounce and pitch, 20 linear
// ODEs y' = alpha y + beta. The state lives on the GPU; each frame is one classical RK4 step of
// h = 1/60 s: four products a, b, c, d = gamma w + delta (gamma = h alpha, delta = h beta; the
// expression "rk-cars", by gpu.linear in the optimised order) and the element-wise updates
// w = y + a/2, y + b/2, y + c and y + (a + 2b + 2c + d)/6 (gpu.addScaled, gpu.add). The state is
// read back each frame to draw the cars; a bump in the road kicks one car now and then.

const $ = (id) => document.getElementById(id);
const CARS = 5;
/** Frames between two bumps; each car meets the bump a little later than the one before. */
const BUMP_EVERY = 120;

/**
 * Starts the animation with `natural` (the RK expression) and `optimised` (the same, permuted);
 * returns its controls: stop, pause, resume, toggle, and use(expr, label) to step with another order.
 */
export function startCars(gpu, natural, optimised) {
  let expr = optimised;
  let order = "optimised";
  let y = gpu.upload(new Float32Array(4 * CARS), 4 * CARS, 1);
  let [frame, running, stopped, pending] = [0, true, false, false];
  const stats = $("linear-cars-stats");
  const canvas = $("linear-cars");
  canvas.dataset.frame = "0";
  const [before, after] = [natural.cost(), optimised.cost()];
  $("linear-cars-costs").textContent = `Each product costs ${before} four-wide instructions in the natural order and ${after} in the optimised one ` +
    `(the paper: 20 → 14 per set); the four products of a step, ${4 * before} → ${4 * after} (the paper: 80 → 56).`;

  /** One RK4 step on the GPU: y <- y + (a + 2b + 2c + d) / 6. */
  const step = () => {
    const a = gpu.linear(expr, y);
    const w1 = gpu.addScaled(y, a, 0.5);
    const b = gpu.linear(expr, w1);
    const w2 = gpu.addScaled(y, b, 0.5);
    const c = gpu.linear(expr, w2);
    const w3 = gpu.add(y, c);
    const d = gpu.linear(expr, w3);
    const s1 = gpu.addScaled(y, a, 1 / 6);
    const s2 = gpu.addScaled(s1, b, 1 / 3);
    const s3 = gpu.addScaled(s2, c, 1 / 3);
    const next = gpu.addScaled(s3, d, 1 / 6);
    [a, w1, b, w2, c, w3, d, s1, s2, s3, y].forEach((m) => m.free());
    y = next;
  };

  const tick = async () => {
    if (stopped) return;
    if (running && !pending) {
      pending = true;
      try {
        step();
        let state = await y.read();
        if (stopped) {
          y.free();
          return;
        }
        frame++;
        const bump = frame % BUMP_EVERY;
        if (bump % 12 === 0 && bump / 12 < CARS) {
          // The road: car (bump / 12) runs over a bump, its bounce and pitch rates kicked.
          const car = bump / 12;
          state = Float32Array.from(state);
          state[4 * car + 1] += 0.25;
          state[4 * car + 3] -= 0.12;
          y.free();
          y = gpu.upload(state, 4 * CARS, 1);
        }
        draw(canvas, state, frame);
        stats.textContent = `frame ${frame} (${order} order): ` +
          Array.from({ length: CARS }, (_, k) => `car ${k + 1} bounce ${(1000 * state[4 * k]).toFixed(1)} mm, pitch ${(1000 * state[4 * k + 2]).toFixed(1)} mrad`).join("; ");
      } catch (e) {
        stopped = true;
        stats.textContent = `The cars stopped: ${e.message ?? e}`;
        stats.classList.add("error");
        return;
      } finally {
        pending = false;
      }
    }
    requestAnimationFrame(tick);
  };
  stats.classList.remove("error");
  requestAnimationFrame(tick);
  const pauseButton = $("linear-cars-pause");
  pauseButton.textContent = "Pause the cars";
  return {
    stop() {
      stopped = true;
      if (!pending) y.free();
    },
    pause() {
      running = false;
    },
    resume() {
      running = pauseButton.textContent === "Pause the cars";
    },
    toggle() {
      running = !running;
      pauseButton.textContent = running ? "Pause the cars" : "Run the cars";
    },
    use(e, label) {
      expr = e;
      order = label;
    },
  };
}

/** Five cars side by side: the body raised by the bounce and turned by the pitch, on springs. */
function draw(canvas, state, frame) {
  const [cw, h] = [160, 150];
  canvas.width = cw * CARS;
  canvas.height = h;
  const g = canvas.getContext("2d");
  g.fillStyle = "#fff";
  g.fillRect(0, 0, canvas.width, h);
  const road = h - 20;
  g.strokeStyle = "#555";
  g.beginPath();
  g.moveTo(0, road);
  g.lineTo(canvas.width, road);
  g.stroke();
  const scale = 600; // pixels per metre of bounce
  for (let k = 0; k < CARS; k++) {
    const [bounce, pitch] = [state[4 * k], state[4 * k + 2]];
    const cx = k * cw + cw / 2;
    const cy = road - 60 - scale * bounce;
    const angle = -4 * pitch; // exaggerated fourfold to be seen
    const axle = 50;
    for (const side of [-1, 1]) {
      const wx = cx + side * axle;
      g.fillStyle = "#333";
      g.beginPath();
      g.arc(wx, road - 12, 12, 0, 2 * Math.PI);
      g.fill();
      g.strokeStyle = "#999";
      g.beginPath();
      g.moveTo(wx, road - 12);
      g.lineTo(wx, cy + side * axle * Math.sin(angle));
      g.stroke();
    }
    g.save();
    g.translate(cx, cy);
    g.rotate(angle);
    g.fillStyle = ["#3465a4", "#cc0000", "#4e9a06", "#c4a000", "#75507b"][k];
    g.fillRect(-65, -22, 130, 22);
    g.fillRect(-30, -40, 60, 18);
    g.restore();
  }
  canvas.dataset.frame = String(frame);
  canvas.setAttribute("aria-label", `Five cars bouncing and pitching on their springs, frame ${frame}; the numbers are below the picture.`);
}
