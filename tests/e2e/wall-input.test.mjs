// End-to-end: the wall takes every click, tap, drag and key, running or not, on each backend
// (issue 33: on WebGPU, whose frames wait for an asynchronous read-back, 0 of 4 clicks on the
// running wall threw a ball). The stats count the balls thrown and the cubes pushed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPage, sharedBrowser, testOnEachBackend } from "./browser.mjs";

const shared = sharedBrowser(before, after);

testOnEachBackend(test, "the wall takes every click, tap, drag and key", async (backend) => {
  const context = await shared.browser.newContext({ viewport: { width: 1280, height: 900 }, hasTouch: true });
  const { page, problems } = await openPage(context, shared.server, `?backend=${backend}`);
  await page.waitForSelector("#wall-canvas", { timeout: 60_000 });
  const canvas = page.locator("#wall-canvas");
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const at = (x, y) => ({ position: { x: box.width * x, y: box.height * y } });
  const stats = () => page.$eval("#wall-stats", (e) => ({ frame: Number(e.dataset.frame), throws: Number(e.dataset.throws), pushes: Number(e.dataset.pushes) }));
  // What the canvas shows once the browser has put its last drawing on screen.
  const picture = async () => {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    return canvas.screenshot();
  };
  // Whether the picture moves on from `before` within 15 s (on WebGPU a drawing waits behind
  // GPU work still queued, such as a frame that Pause abandoned).
  const changed = async (before) => {
    for (const end = Date.now() + 15_000; Date.now() < end; await page.waitForTimeout(100)) {
      if (!before.equals(await picture())) return true;
    }
    return false;
  };
  /** Waits until `frames` more frames have finished than `from`. */
  const frames = (from, frames) => page.waitForFunction((f) => Number(document.getElementById("wall-stats").dataset.frame) >= f, from + frames, { timeout: 90_000 });

  // Paused: a click in push mode pushes the cube under it; a drag turns the camera and throws
  // nothing.
  await page.selectOption("#wall-click", "push");
  await canvas.click(at(0.5, 0.55));
  assert.deepEqual(await stats(), { frame: 0, throws: 0, pushes: 1 });
  await page.selectOption("#wall-click", "throw");
  const standing = await picture();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.35, { steps: 5 });
  await page.mouse.up();
  assert.ok(await changed(standing), "the drag turned the camera");
  assert.equal((await stats()).throws, 0, "a drag throws nothing");

  // Running: four clicks and two taps, each while a frame is in flight (a frame here takes
  // longer than the 150 ms between them), all reach the wall and stay through the frames.
  await page.click("#wall-run");
  for (const x of [0.4, 0.45, 0.5, 0.55]) {
    await canvas.click(at(x, 0.55));
    await page.waitForTimeout(150);
  }
  for (const x of [0.48, 0.52]) {
    await canvas.tap(at(x, 0.5));
    await page.waitForTimeout(150);
  }
  await frames((await stats()).frame, 2);
  assert.equal((await stats()).throws, 6, "4 clicks and 2 taps threw 6 balls");

  // The keyboard, running: the view is the next stop after Verify; Space and Enter throw.
  await page.focus("#wall-verify");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "wall-canvas");
  await page.keyboard.press("Space");
  await page.keyboard.press("Enter");
  await frames((await stats()).frame, 2);
  assert.equal((await stats()).throws, 8, "Space and Enter threw 2 balls");
  await page.click("#wall-run");

  // The keyboard, paused: the arrows orbit and + zooms (the picture changes, the page does not
  // scroll); Space throws at once, and the next frame keeps it.
  const scroll = await page.evaluate(() => scrollY);
  for (const key of ["ArrowLeft", "ArrowUp", "+"]) {
    const before = await picture();
    await canvas.press(key);
    assert.ok(await changed(before), `${key} changed the view`);
  }
  assert.equal(await page.evaluate(() => scrollY), scroll, "the keys stay with the view");
  await canvas.press("Space");
  assert.equal((await stats()).throws, 9);
  const { frame } = await stats();
  await page.click("#wall-step");
  await frames(frame, 1);
  assert.deepEqual(await stats(), { frame: frame + 1, throws: 9, pushes: 1 });
  assert.ok(await page.isHidden("#wall-error"), await page.textContent("#wall-error"));
  assert.deepEqual(problems, []);
  await context.close();
}, { timeout: 150_000 });
