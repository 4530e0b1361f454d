// Screenshots of the tutorial for a person to look at: the handout printed right after load
// (nothing run), the lesson list at 1280 and 390 px, presentation mode opened by `?present`,
// then desktop and 390 px phone after every lesson's check has run, and the handout again;
// `node tutorial-shots.mjs [backend] [out-dir]`.
import { serve, launch, openPage } from "../tests/e2e/browser.mjs";

const backend = process.argv[2] ?? "webgpu";
const dir = process.argv[3] ?? "/tmp";
const server = await serve();
const browser = await launch();
const shot = (page, name, target = page) => target.screenshot({ path: `${dir}/tutorial-${backend}-${name}.png` });
try {
  // Opened by ?present: lesson 1 on arrival, its check run.
  {
    const { page } = await openPage(browser, server, `?backend=${backend}&present`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForSelector("#lesson-gpu [data-part=check][data-done]", { timeout: 60_000 }).catch(() => console.log("?present: lesson 1's check did not run"));
    await shot(page, "present-arrival");
    await page.close();
  }
  const { page, problems } = await openPage(browser, server, `?backend=${backend}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForSelector("#square-result-kernels[data-done]", { timeout: 60_000 });
  await shot(page, "toc-1280", page.locator("#toc"));
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "toc-390", page.locator("#toc"));
  await page.setViewportSize({ width: 1280, height: 900 });
  // The handout right after load: nothing has run.
  await page.emulateMedia({ media: "print" });
  await page.pdf?.({ path: `${dir}/tutorial-${backend}-handout-at-load.pdf` }).catch(() => {});
  for (const id of ["lesson-gpu", "lesson-functions", "lesson-nmf"]) await shot(page, `print-at-load-${id}`, page.locator(`#${id}`));
  await page.emulateMedia({ media: "screen" });

  const t0 = Date.now();
  await page.click("#run-all-checks");
  await page.waitForSelector("#run-all-status[data-done]", { timeout: 300_000 });
  console.log(`all checks: ${(Date.now() - t0) / 1000} s: ${await page.textContent("#run-all-status")}`);
  await shot(page, "top");
  for (const id of await page.$$eval("section.lesson", (ss) => ss.map((s) => s.id))) await shot(page, id, page.locator(`#${id}`));
  await page.setViewportSize({ width: 390, height: 844 });
  console.log(`scrollWidth at 390: ${await page.evaluate(() => document.documentElement.scrollWidth)}`);
  const wide = await page.evaluate(() => [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > 392).slice(0, 15).map((e) => `${e.tagName}#${e.id}.${e.className?.baseVal ?? e.className} ${Math.round(e.getBoundingClientRect().right)}`));
  console.log(wide.join("\n"));
  await shot(page, "phone-top");
  await shot(page, "phone-texture", page.locator("#lesson-texture"));
  await shot(page, "phone-shader", page.locator("#lesson-shader"));
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.click("#present-toggle");
  await page.keyboard.press("ArrowRight");
  await shot(page, "present");
  await page.keyboard.press("Escape");
  await page.emulateMedia({ media: "print" });
  await page.pdf?.({ path: `${dir}/tutorial-${backend}-handout.pdf` }).catch(() => {});
  await shot(page, "print");
  await shot(page, "print-shader", page.locator("#lesson-shader"));
  console.log(problems.length ? problems.join("\n") : "no problems");
} finally {
  await browser.close();
  server.close();
}
