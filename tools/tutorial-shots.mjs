// Screenshots of the tutorial for a person to look at: desktop and 390 px phone, after every
// lesson's check has run; `node tutorial-shots.mjs [backend] [out-dir]`.
import { serve, launch, openPage } from "../tests/e2e/browser.mjs";

const backend = process.argv[2] ?? "webgpu";
const dir = process.argv[3] ?? "/tmp";
const server = await serve();
const browser = await launch();
try {
  const { page, problems } = await openPage(browser, server, `?backend=${backend}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForSelector("#square-result-kernels[data-done]", { timeout: 60_000 });
  const t0 = Date.now();
  await page.click("#run-all-checks");
  await page.waitForSelector("#run-all-status[data-done]", { timeout: 300_000 });
  console.log(`all checks: ${(Date.now() - t0) / 1000} s: ${await page.textContent("#run-all-status")}`);
  await page.screenshot({ path: `${dir}/tutorial-${backend}-top.png` });
  for (const id of await page.$$eval("section.lesson", (ss) => ss.map((s) => s.id))) {
    await page.locator(`#${id}`).screenshot({ path: `${dir}/tutorial-${backend}-${id}.png` });
  }
  await page.setViewportSize({ width: 390, height: 844 });
  console.log(`scrollWidth at 390: ${await page.evaluate(() => document.documentElement.scrollWidth)}`);
  const wide = await page.evaluate(() => [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > 392).slice(0, 15).map((e) => `${e.tagName}#${e.id}.${e.className?.baseVal ?? e.className} ${Math.round(e.getBoundingClientRect().right)}`));
  console.log(wide.join("\n"));
  await page.screenshot({ path: `${dir}/tutorial-${backend}-phone-top.png` });
  await page.locator("#lesson-texture").screenshot({ path: `${dir}/tutorial-${backend}-phone-texture.png` });
  await page.locator("#lesson-shader").screenshot({ path: `${dir}/tutorial-${backend}-phone-shader.png` });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.click("#present-toggle");
  await page.keyboard.press("ArrowRight");
  await page.screenshot({ path: `${dir}/tutorial-${backend}-present.png` });
  await page.keyboard.press("Escape");
  await page.emulateMedia({ media: "print" });
  await page.pdf?.({ path: `${dir}/tutorial-${backend}-handout.pdf` }).catch(() => {});
  await page.screenshot({ path: `${dir}/tutorial-${backend}-print.png` });
  await page.locator("#lesson-shader").screenshot({ path: `${dir}/tutorial-${backend}-print-shader.png` });
  console.log(problems.length ? problems.join("\n") : "no problems");
} finally {
  await browser.close();
  server.close();
}
