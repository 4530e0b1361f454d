// The README's two pictures, taken from the served page in headless Chromium:
// docs/images/page.png (the top of the page, 1280 px wide) and docs/images/wall.png (the wall
// canvas forty frames after the ball hit). Needs pkg/ and tests/e2e's node_modules (bash tools/test.sh
// makes both). `node tools/docs-images.mjs [backend] [out-dir]`, by default webgpu, docs/images.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve, launch, openPage } from "../tests/e2e/browser.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const backend = process.argv[2] ?? "webgpu";
const dir = process.argv[3] ?? path.join(root, "docs/images");
const server = await serve();
const browser = await launch();
try {
  const { page, problems } = await openPage(browser, server, `?backend=${backend}`);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForSelector("#square-result-summary", { timeout: 120_000 });
  await page.waitForSelector("#cap-float32:not(:empty)", { timeout: 60_000 });
  await page.screenshot({ path: `${dir}/page.png` });

  await page.waitForSelector("#wall-canvas", { timeout: 120_000 });
  await page.locator("#wall").scrollIntoViewIfNeeded();
  const box = await page.locator("#wall-canvas").boundingBox();
  await page.locator("#wall-canvas").click({ position: { x: box.width * 0.5, y: box.height * 0.55 } });
  for (let frame = 1; frame <= 40; frame++) {
    await page.click("#wall-step");
    await page.waitForFunction((f) => document.getElementById("wall-stats").dataset.frame === String(f), frame, { timeout: 60_000 });
  }
  await page.waitForTimeout(500);
  // The picture alone: the frame's figures drawn over it are this machine's timings.
  await page.$eval("#wall-stats", (e) => (e.style.visibility = "hidden"));
  await page.locator("#wall-canvas").screenshot({ path: `${dir}/wall.png` });
  console.log(problems.length ? problems.join("\n") : "no problems");
} finally {
  await browser.close();
  server.close();
}
