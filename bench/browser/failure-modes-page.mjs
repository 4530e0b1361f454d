// The page part of bench/browser/failure-modes.mjs: the page as a person uses it (Playwright in
// node), with the loss recorders of that survey's init script in the page.

/** The page, as a person uses it. Runs in node: gets the page (opened with the recorders). */
export async function onThePage(page, backend, rows) {
  const text = async (sel) => (await page.textContent(sel))?.replace(/\s+/g, " ").trim();
  await page.waitForSelector("#square-result-summary", { timeout: 120_000 });
  // The page runs every kernel on the first square after it: let the GPU finish that first.
  await page.waitForSelector("#square-result-kernels[data-done]", { timeout: 120_000 });
  // The wall's iterations and omega, typed into the page.
  await page.fill("#wall-iterations", String(2 ** 31));
  await page.dispatchEvent("#wall-iterations", "change");
  rows.push({ mode: "page: wall iterations set to 2147483648", sees: (await page.isHidden("#wall-error")) ? "nothing shown" : `"${await text("#wall-error")}"`, usable: await wallSteps(page, 120_000) });
  await page.fill("#wall-iterations", "0");
  await page.dispatchEvent("#wall-iterations", "change");
  await page.fill("#wall-omega", "-0.8");
  await page.dispatchEvent("#wall-omega", "change");
  rows.push({ mode: "page: wall ω set to -0.8", sees: (await page.isHidden("#wall-error")) ? "nothing shown" : `"${await text("#wall-error")}"`, usable: await wallSteps(page) });
  await page.fill("#wall-omega", "-0.1");
  await page.dispatchEvent("#wall-omega", "change");
  // The most iterations the page accepts, one Step: how long is the page's main thread held?
  await page.click("#wall-reset");
  await page.click("#wall-sleeping");
  await page.fill("#wall-iterations", "20000");
  await page.dispatchEvent("#wall-iterations", "change");
  const gap = () => page.evaluate(() => {
    window.fmGap = 0;
    let t = performance.now();
    clearInterval(window.fmTick);
    window.fmTick = setInterval(() => { const n = performance.now(); window.fmGap = Math.max(window.fmGap, n - t - 50); t = n; }, 50);
  });
  const frame0 = Number(await page.getAttribute("#wall-stats", "data-frame") ?? 0);
  await gap();
  const t0 = Date.now();
  await pressStep(page);
  let stepped = true;
  await page.waitForSelector(`#wall-stats[data-frame='${frame0 + 1}']`, { timeout: 120_000 }).catch(() => { stepped = false; });
  const held = await page.evaluate(() => window.fmGap);
  await page.fill("#wall-iterations", "0");
  await page.dispatchEvent("#wall-iterations", "change");
  rows.push({
    mode: "page: wall iterations 20000 (the largest accepted), sleeping off, Step (then iterations back to 0)",
    sees: `${stepped ? `the frame came after ${((Date.now() - t0) / 1000).toFixed(1)} s` : "no frame in 120 s"}; the page's 50 ms timer was at most ${(held / 1000).toFixed(1)} s late (the page ${held > 1000 ? "FROZE: no click, scroll or Pause in that time" : "stayed responsive"})${(await page.isHidden("#wall-error")) ? "" : `; error shown: "${await text("#wall-error")}"`}`,
    usable: await wallSteps(page),
  });
  await page.click("#wall-sleeping");
  // The seed's preset (projected Jacobi, 2n iterations, the dense 400 x 400 way), Start, then
  // Pause after 3 s: Pause calls wall.cancel().
  await page.click("#wall-reset");
  await page.selectOption("#wall-preset", "seed");
  await gap();
  const t1 = Date.now();
  await press(page, "wall-run");
  await page.waitForTimeout(3000);
  await press(page, "wall-run");
  const paused = (Date.now() - t1) / 1000;
  const held2 = await page.evaluate(() => window.fmGap);
  const sees2 = `Pause was clicked ${paused.toFixed(1)} s after Start; the page's 50 ms timer was at most ${(held2 / 1000).toFixed(1)} s late (the page ${held2 > 1000 ? "FROZE" : "stayed responsive"}); frame ${await page.getAttribute("#wall-stats", "data-frame")}${(await page.isHidden("#wall-error")) ? "" : `; error shown: "${await text("#wall-error")}"`}`;
  // Back to the texla preset: the next Step waits for the GPU to finish the abandoned frame.
  await page.selectOption("#wall-preset", "texla");
  rows.push({
    mode: "page: the seed preset (one frame takes 60-90 s here), Start, Pause after 3 s, back to the texla preset, Step",
    sees: sees2,
    usable: await wallSteps(page, 240_000),
  });
  await page.evaluate(() => clearInterval(window.fmTick));
  // A bad size in a form.
  await page.fill("#square-n", "2.5");
  await page.evaluate(() => document.getElementById("square-form").requestSubmit());
  await page.waitForSelector("#square-result .error", { timeout: 30_000 }).catch(() => {});
  rows.push({ mode: "page: square n = 2.5", sees: (await page.locator("#square-result .error").count()) ? `"${await text("#square-result .error")}"` : "no error shown", usable: await squares(page) });
  // The button that loses the GPU on purpose.
  await page.evaluate(() => document.getElementById("square-result").replaceChildren());
  await page.click("#lose-gpu");
  rows.push({ mode: "page: the \"Simulate losing the GPU\" button (gpu.loseContext())", sees: await banner(page), usable: await squares(page, true) });
  // A loss from outside texla, on the context or device the page's Gpgpu holds now.
  await page.evaluate(() => { document.getElementById("gpu-lost").hidden = true; delete document.getElementById("gpu-lost").dataset.state; document.getElementById("square-result").replaceChildren(); });
  const what = await page.evaluate((backend) => {
    if (backend === "webgl2") {
      const live = window.fmContexts.filter((c) => !c.isContextLost());
      live.at(-1).getExtension("WEBGL_lose_context").loseContext();
      return `WEBGL_lose_context.loseContext() on the newest of ${live.length} live WebGL2 contexts`;
    }
    window.fmDevices.at(-1).destroy();
    return `device.destroy() on the newest of ${window.fmDevices.length} WebGPU devices`;
  }, backend);
  rows.push({ mode: `page: ${what} (from outside texla)`, sees: await banner(page), usable: await squares(page, true) });
}

async function banner(page) {
  try {
    await page.waitForSelector("#gpu-lost[data-state='restored'], #gpu-lost[data-state='failed']", { timeout: 60_000 });
  } catch {
    return `no banner within 60 s (${(await page.isHidden("#gpu-lost")) ? "hidden" : `"${(await page.textContent("#gpu-lost")).trim()}"`})`;
  }
  return `banner: "${(await page.textContent("#gpu-lost")).replace(/\s+/g, " ").replace(/ Dismiss$/, "").trim()}"`;
}

/** Clicks a button (Step) from a timer in the page, so that a frame that holds the page's thread does not
 * hold the survey's click (Playwright waits for the click's handlers). */
const press = (page, id) => page.evaluate((id) => { setTimeout(() => document.getElementById(id).click(), 0); }, id);
const pressStep = (page) => press(page, "wall-step");

async function wallSteps(page, timeout = 60_000) {
  const before = Number(await page.getAttribute("#wall-stats", "data-frame") ?? 0);
  const t0 = Date.now();
  await pressStep(page);
  try {
    await page.waitForSelector(`#wall-stats[data-frame='${before + 1}']`, { timeout });
  } catch {
    return (await page.isHidden("#wall-error")) ? `NO: Step gave no frame in ${timeout / 1000} s` : `NO: "${await page.textContent("#wall-error")}"`;
  }
  const took = (Date.now() - t0) / 1000;
  const when = took > 5 ? `, but the frame took ${took.toFixed(0)} s` : "";
  return (await page.isHidden("#wall-error")) ? `yes (the wall steps${when})` : `the wall steps${when}, but shows "${await page.textContent("#wall-error")}"`;
}

async function squares(page, rerun = false) {
  if (!rerun) {
    await page.fill("#square-n", "33");
    await page.click("#square-form button");
  }
  try {
    await page.waitForSelector("#square-result-summary, #square-result .error", { timeout: 60_000 });
  } catch {
    return "NO: the square gave nothing in 60 s";
  }
  if (await page.locator("#square-result .error").count()) return `NO: "${await page.textContent("#square-result .error")}"`;
  const ok = (await page.getAttribute("#square-result-summary", "data-within-bound")) === "true";
  return ok ? `yes (${rerun ? "the square ran again by itself, " : ""}within the float32 bound of float64)` : "NO: the square is outside the float64 bound";
}
