// The collapsing wall (the ShaderX2 article, Figure 4): 60 cubes whose contacts are solved as an LCP on
// the GPU every frame, drawn with the same backend. Drag to orbit, wheel to zoom, click or tap
// to throw the ball (or push a cube); from the keyboard, the focused view orbits with the arrow
// keys, zooms with + and −, and throws at its centre with Space or Enter. Every such input takes
// effect on the next frame, even while one is being simulated (src/physics/live.rs). "Verify"
// solves the frame's LCP again in float64 here.

import { verify } from "./reference/contact.js";
import { downloadCsv } from "./download.js";
import { wallGestures } from "./gestures.js";

/** Frames whose stats are kept for the CSV download: the last minute at 60 fps. */
export const KEPT_FRAMES = 3600;

const $ = (id) => document.getElementById(id);

/**
 * Sets up the wall section on `gpu`; returns `{ wall, restored, prepare }`, where `restored()`
 * takes the new canvas after a lost GPU came back, draws, and goes on running if the loss
 * stopped it, and `prepare()` builds the wall's shaders, saying so in the wall's status.
 */
export function initWall(gpu) {
  const wall = gpu.wall(1);
  $("wall-status").textContent = `The LCP is solved and the view drawn on ${gpu.backend === "webgpu" ? "WebGPU" : "WebGL2"}.`;
  let canvas = wall.canvas();
  canvas.id = "wall-canvas";
  // A focusable view that takes its own keys: role "application", described by the keyboard
  // hint under it.
  canvas.tabIndex = 0;
  canvas.setAttribute("role", "application");
  canvas.setAttribute("aria-roledescription", "3D view");
  canvas.setAttribute("aria-label", "the wall of cubes, drawn by the GPU; drag to orbit, wheel to zoom, click to throw the ball or push a cube");
  canvas.setAttribute("aria-describedby", "wall-keys");
  $("wall-view").prepend(canvas);
  // The stats: a corner panel over the view where it is wide, under it where it is narrow
  // (www/style.css); its button folds it, folded at first on a narrow screen.
  const statsOpen = (open) => {
    $("wall-stats").hidden = !open;
    $("wall-stats-toggle").setAttribute("aria-expanded", String(open));
    $("wall-stats-toggle").textContent = open ? "Hide stats" : "Stats";
  };
  statsOpen(!window.matchMedia("(max-width: 600px)").matches);
  $("wall-stats-toggle").addEventListener("click", () => statsOpen($("wall-stats").hidden));
  const fit = () => {
    const width = Math.max(320, Math.round($("wall-view").clientWidth * (window.devicePixelRatio || 1)));
    canvas.width = width;
    canvas.height = Math.round((width * 9) / 16);
  };
  fit();
  window.addEventListener("resize", () => { fit(); draw(); });
  let running = false;
  let last = performance.now();
  let fps = 0;
  // Whether a lost GPU stopped the running wall (it goes on once the GPU is back).
  let stoppedByLoss = false;

  const fail = (e) => {
    stoppedByLoss = running && /the GPU went away/.test(e?.message ?? "");
    running = false;
    $("wall-run").textContent = "Start";
    $("wall-error").textContent = e.message ?? String(e);
    $("wall-error").hidden = false;
  };
  const draw = () => {
    try { wall.draw(); } catch (e) { fail(e); }
  };
  const show = (s) => {
    const islands = s.islands;
    const sizes = islands.length > 6 ? `${islands.slice(0, 6).join(", ")}, … (${islands.length})` : islands.join(", ");
    const rows = [
      ["frame", s.frame], ["bodies", `${s.bodies}${s.sleeping ? `, ${s.asleep} asleep` : ""}`], ["contacts solved", s.contacts],
      ["LCP size", `${s.lcpSize} (${s.mode === "dense" ? `dense ${4 * s.contacts}²` : "block rows"})`],
      ["islands (LCP sizes)", sizes || "–"],
      ["solver", { nesterov: `accelerated, step ${s.step.toFixed(3)}`, "gauss-seidel": "graph-coloured Gauss-Seidel", soft: "soft step" }[s.solver] ?? `projected Jacobi, ω ${s.omega}`],
      ["iterations", s.solver === "soft" ? `${s.iterations} substeps` : s.iterations],
      ["frame", `${s.frameMs.toFixed(1)} ms`],
      // Where the frame's time went: the CPU finds contacts, assembles the LCP, picks the step
      // and lays the textures out; the GPU part is the upload, the solve and the read-back.
      ["CPU part", `${s.cpuMs.toFixed(1)} ms (contacts ${s.parts.contacts.toFixed(1)}, LCP ${s.parts.assembly.toFixed(1)}, step ${s.parts.step.toFixed(1)}, layout ${s.parts.layout.toFixed(1)}, integration ${s.parts.end.toFixed(1)})${s.narrowPhase === "gpu" ? "; the contacts' narrow phase ran on the GPU" : ""}`],
      ["GPU part", `${s.solveMs.toFixed(1)} ms (upload ${s.parts.upload.toFixed(1)}, solve and read-back ${s.parts.solve.toFixed(1)})`],
      ["fps", fps.toFixed(1)], ["residual", s.solver === "soft" ? "– (the soft step answers no one LCP)" : s.residual.toExponential(2)],
      ["deepest contact", `${(s.penetration * 1000).toFixed(2)} mm`],
      ["energy", `${s.energy.toFixed(0)} of ${s.energyIn.toFixed(0)} J put in`],
      ["thrown, pushed", `${s.throws} balls, ${s.pushes} cubes`],
    ];
    $("wall-stats").innerHTML = rows.map(([k, v]) => `<div><b>${k}</b> ${v}</div>`).join("");
    Object.assign($("wall-stats").dataset, { frame: s.frame, throws: s.throws, pushes: s.pushes });
  };
  // The last KEPT_FRAMES frames' stats, one row each, for "Frame stats (CSV)".
  const frames = [];
  const keep = (s) => {
    frames.push([s.frame, s.bodies, s.asleep ?? 0, s.contacts, s.lcpSize, s.mode, s.solver, s.iterations, s.frameMs, s.cpuMs, s.solveMs,
      s.parts.contacts, s.parts.assembly, s.parts.step, s.parts.layout, s.parts.end, s.parts.upload, s.parts.solve, fps, s.residual, s.penetration, s.energy, s.energyIn]);
    if (frames.length > KEPT_FRAMES) frames.shift();
    $("wall-stats-csv").dataset.frames = frames.length;
  };
  $("wall-stats-csv").addEventListener("click", () => downloadCsv("wall-frames.csv", [
    ["frame", "bodies", "asleep", "contacts", "lcp_size", "mode", "solver", "iterations", "frame_ms", "cpu_ms", "gpu_ms",
      "contacts_ms", "assembly_ms", "step_ms", "layout_ms", "integration_ms", "upload_ms", "solve_readback_ms", "fps", "residual", "penetration_m", "energy_j", "energy_in_j"],
    ...frames,
  ]));
  const step = async () => {
    const s = await wall.step();
    const now = performance.now();
    fps = 0.8 * fps + 0.2 * (1000 / Math.max(1, now - last));
    last = now;
    draw();
    show(s);
    keep(s);
    return s;
  };
  // A frame abandoned by Pause (wall.cancel()) or Reset rejects with this; it is no failure.
  const abandoned = (e) => /cancelled or the wall reset/.test(e?.message ?? "");
  const loop = async () => {
    if (!running) return;
    try {
      await step();
    } catch (e) {
      if (!abandoned(e)) { fail(e); return; }
    }
    requestAnimationFrame(loop);
  };

  $("wall-form").addEventListener("submit", (e) => e.preventDefault());
  $("wall-run").addEventListener("click", () => {
    running = !running;
    $("wall-run").textContent = running ? "Pause" : "Start";
    $("wall-error").hidden = true;
    last = performance.now();
    // Pausing abandons a frame under way (the seed's preset can take seconds a frame on a
    // CPU-emulated GPU), so the page never waits for it.
    if (running) loop(); else wall.cancel();
  });
  $("wall-step").addEventListener("click", async () => {
    if (running) return;
    try { await step(); } catch (e) { if (!abandoned(e)) fail(e); }
  });
  $("wall-reset").addEventListener("click", () => {
    wall.reset();
    $("wall-error").hidden = true;
    draw();
    show(wall.stats());
  });
  // 1, 10, 100 or 1000 walls one behind the other (past 100 in columns of 100 side by side): a
  // new standing scene, the camera backed off. 100 walls have 42,000 contacts, more than one
  // texture's rows on most GPUs: the contact system wraps them into several texel columns
  // (src/solver/contact_wrap.rs). At 1000 walls (60,000 cubes) the CPU's part of a frame takes
  // seconds awake: the stats show it.
  $("wall-scene").addEventListener("change", (e) => {
    try {
      wall.reset(undefined, Number(e.target.value));
    } catch (err) {
      return fail(err);
    }
    $("wall-error").hidden = true;
    draw();
    show(wall.stats());
  });
  $("wall-mode").addEventListener("change", (e) => wall.setMode(e.target.value));
  $("wall-solver").addEventListener("change", (e) => wall.setSolver(e.target.value));
  $("wall-sleeping").addEventListener("change", (e) => wall.setSleeping(e.target.checked));
  $("wall-preset").addEventListener("change", (e) => {
    wall.preset(e.target.value);
    const seed = e.target.value === "seed";
    $("wall-solver").value = seed ? "jacobi" : "nesterov";
    $("wall-mode").value = seed ? "dense" : "blocks";
    $("wall-iterations").value = "0";
    $("wall-omega").value = "-0.1";
    $("wall-sleeping").checked = !seed;
    $("wall-error").hidden = true;
  });
  $("wall-iterations").addEventListener("change", (e) => {
    const n = Number(e.target.value);
    if (!Number.isInteger(n) || n < 0) return fail(new Error(`iterations must be a whole number ≥ 0 (0 = the solver's default), got "${e.target.value}"`));
    $("wall-error").hidden = true;
    try { wall.setIterations(n); } catch (err) { return fail(err); }
  });
  $("wall-omega").addEventListener("change", (e) => {
    try { wall.setOmega(Number(e.target.value)); $("wall-error").hidden = true; } catch (err) { fail(err); }
  });
  $("wall-verify").addEventListener("click", () => {
    let lcp;
    try {
      lcp = wall.lcp();
    } catch (e) {
      $("wall-verify-result").textContent = e.message;
      return;
    }
    if (!lcp) {
      $("wall-verify-result").textContent = "Run at least one frame first.";
      return;
    }
    if (lcp.solver === "soft") {
      $("wall-verify-result").textContent = "The soft step moves the cubes within its frame, so it answers no single LCP to check here: the test suite checks its frames against float64 (tests/wall.rs). Pick another solver to verify a frame.";
      return;
    }
    if (lcp.contacts === 0) {
      $("wall-verify-result").textContent = "No contact was solved this frame (the wall is asleep, or nothing touches): throw the ball, or untick sleeping, and step again.";
      return;
    }
    $("wall-verify-result").innerHTML = verificationTable(verify(lcp));
  });

  // A click, a tap or a key at the canvas point (x, y) in -1..1 (y up): throws the ball or
  // pushes the cube there, as the "click" control says. The wall keeps it for the next frame
  // whether or not one is being simulated.
  const act = (x, y) => {
    if ($("wall-click").value === "push") {
      if (!wall.push(x, y)) $("wall-status").textContent = "No cube under the pointer.";
    } else {
      wall.throwBall(x, y);
    }
    if (!running) { draw(); show(wall.stats()); }
  };
  // Arrows, + and −, Space and Enter; drag, wheel, click or tap (gestures.js).
  const listen = (canvas) => wallGestures(canvas, {
    orbit: (yaw, pitch, zoom) => wall.orbit(yaw, pitch, zoom),
    act,
    after: () => { if (!running) draw(); },
  });
  listen(canvas);

  draw();
  show(wall.stats());
  const restored = () => {
    const fresh = wall.canvas();
    if (fresh !== canvas) {
      fresh.id = canvas.id;
      for (const name of ["role", "aria-roledescription", "aria-label", "aria-describedby"]) fresh.setAttribute(name, canvas.getAttribute(name));
      fresh.tabIndex = 0;
      canvas.replaceWith(fresh);
      canvas = fresh;
      listen(canvas);
      fit();
    }
    $("wall-error").hidden = true;
    draw();
    if (stoppedByLoss && !running) $("wall-run").click();
    stoppedByLoss = false;
  };
  // Builds the wall's shaders before the reader presses Start (seconds on a CPU-emulated GPU),
  // saying so; a Start meanwhile waits for them, its frame's clock starting after.
  const ready = $("wall-status").textContent;
  const prepare = () => {
    $("wall-status").textContent = "Building the wall's shaders on your GPU…";
    $("wall-status").dataset.compiling = "";
    return wall.prepare().then(
      () => ($("wall-status").textContent = ready),
      (e) => ($("wall-status").textContent = `${ready} (its shaders are built by the first frame: ${e.message ?? e})`),
    ).finally(() => {
      delete $("wall-status").dataset.compiling;
      $("wall-status").dataset.prepared = "";
    });
  };
  return { wall, restored, prepare };
}

function verificationTable(v) {
  const f = (x) => (Number.isFinite(x) ? x.toExponential(2) : "–");
  const lemke = v.lemke.length
    ? v.lemke.map((l) => `<tr><td>island of ${l.contacts} contacts</td><td>${l.solved ? `max |Δ normal impulse| ${f(l.maxNormalDiff)} N·s (largest ${f(l.maxNormal)})` : "Lemke ended on a ray"}</td></tr>`).join("")
    : `<tr><td colspan="2">no island small enough for Lemke (≤ 40 contacts) this frame</td></tr>`;
  return `<table class="numbers" id="wall-verify-table">
    <tr><th>check</th><th>result</th></tr>
    <tr><td>float64 ${v.solver === "nesterov" ? "accelerated projected Jacobi" : "projected Jacobi"}, same start and ${v.iterations} iterations (${v.jsMs.toFixed(0)} ms in JS)</td>
        <td data-diff="${v.maxImpulseDiff}">max |GPU − float64| ${f(v.maxImpulseDiff)} N·s of ${f(v.maxImpulse)}</td></tr>
    <tr><td>complementarity residual of the GPU's impulses (float64)</td><td>${f(v.residualGpu)} m/s</td></tr>
    <tr><td>complementarity residual of the float64 impulses</td><td>${f(v.residual64)} m/s</td></tr>
    ${lemke}</table>`;
}
