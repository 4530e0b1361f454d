// End-to-end: the page's layout at a phone's width (390 px) and a laptop's (1280 px), on each
// backend (issue 33): the wall visible, its stats a folding corner panel, touch targets of at
// least 44 px on the phone, no text over other text, nothing scrolling sideways.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPage, sharedBrowser, testOnEachBackend } from "./browser.mjs";

const shared = sharedBrowser(before, after);

/** The smallest touch target, px (WCAG 2.5.5; Apple's and Android's guidance alike). */
const TOUCH = 44;

/** The most of the wall's canvas its stats panel may cover. */
const CORNER = 0.35;

/**
 * Measured in the page: the canvas, the stats panel and their overlap (fraction of the
 * canvas), whether the canvas's middle is the canvas, and whether the stats are shown.
 */
function measureWall() {
  const canvas = document.getElementById("wall-canvas");
  const c = canvas.getBoundingClientRect();
  const p = document.getElementById("wall-stats-panel").getBoundingClientRect();
  const w = Math.max(0, Math.min(c.right, p.right) - Math.max(c.left, p.left));
  const h = Math.max(0, Math.min(c.bottom, p.bottom) - Math.max(c.top, p.top));
  canvas.scrollIntoView({ block: "center" });
  const r = canvas.getBoundingClientRect();
  return {
    canvas: { width: c.width, height: c.height },
    covered: (w * h) / (c.width * c.height),
    middleFree: document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === canvas,
    open: !document.getElementById("wall-stats").hidden,
    expanded: document.getElementById("wall-stats-toggle").getAttribute("aria-expanded"),
  };
}

/** Measured in the page: the visible controls smaller than `touch` px (a checkbox or radio
 * button by its label, the target a finger meets), as "tag#id.class: w x h". */
function smallTargets(touch) {
  // checkVisibility: false also inside a closed <details> (laid out, not rendered).
  const shown = (e) => e.getClientRects().length > 0 && e.checkVisibility({ visibilityProperty: true });
  const name = (e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}${e.textContent ? ` "${e.textContent.trim().slice(0, 30)}"` : ""}`;
  return [...document.querySelectorAll("button, select, input, summary, textarea")]
    .filter(shown)
    .map((e) => (/^(checkbox|radio)$/.test(e.type) ? e.closest("label") ?? e : e))
    .map((e) => [e, e.getBoundingClientRect()])
    .filter(([e, r]) => r.height < touch - 0.5 || (e.tagName === "BUTTON" && r.width < touch - 0.5))
    .map(([e, r]) => `${name(e)}: ${r.width.toFixed(0)} x ${r.height.toFixed(0)}`);
}

/** Measured in the page: pairs of visible text blocks (headings, paragraphs, list items,
 * links, labels, controls, captions, the wall's stats) whose boxes overlap by more than a
 * pixel, neither inside the other, and how wide the page scrolls. */
function overlapsAndWidth() {
  const blocks = [...document.querySelectorAll("body h1, body h2, body h3, body p, body li, body a, body label, body button, body select, body figcaption, body summary, body dt, body dd, body .status, body .wall-stats, body .wall-stats-panel")]
    .filter((e) => e.getClientRects().length > 0 && e.checkVisibility({ visibilityProperty: true }) && e.textContent.trim());
  const boxes = blocks.map((e) => [e, [...e.getClientRects()]]);
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""} "${e.textContent.trim().slice(0, 40)}"`;
  const found = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, ra] = boxes[i], [b, rb] = boxes[j];
      if (a.contains(b) || b.contains(a)) continue;
      if (ra.some((x) => rb.some((y) => overlap(x, y)))) found.push(`${name(a)} / ${name(b)}`);
    }
  }
  return { overlaps: found.slice(0, 10), count: found.length, scrollWidth: document.documentElement.scrollWidth, width: innerWidth };
}

testOnEachBackend(test, "the page is usable at 390 and 1280 px", async (backend) => {
  // Opened on the phone (the page folds the stats by the width it opens at), then widened:
  // one load per backend (tests/e2e/page.test.mjs opens at 1280 px and reads the stats shown).
  const context = await shared.browser.newContext({ viewport: { width: 390, height: 844 } });
  const { page, problems } = await openPage(context, shared.server, `?backend=${backend}`);
  await page.waitForSelector("#wall-canvas", { timeout: 60_000 });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
    // The wall: as wide as its section, its middle free; the stats folded on the phone, and
    // never over more than a corner of the view, shown or folded.
    const first = await page.evaluate(measureWall);
    assert.ok(first.canvas.width > 0.7 * Math.min(width, 1100) - 120 && first.canvas.height > 100, JSON.stringify(first));
    if (width < 600) assert.equal(first.open, false, "stats folded on a phone");
    assert.equal(first.expanded, String(first.open));
    assert.ok(first.middleFree, `${width} px: the view's middle is free`);
    assert.ok(first.covered < CORNER, `${width} px: the stats cover ${(100 * first.covered).toFixed(0)}% of the view`);
    await page.click("#wall-stats-toggle");
    const second = await page.evaluate(measureWall);
    assert.equal(second.open, !first.open, "the button folds and unfolds the stats");
    assert.equal(second.expanded, String(second.open));
    assert.ok(second.middleFree && second.covered < CORNER, `${width} px: ${JSON.stringify(second)}`);
    if (second.open) assert.match(await page.textContent("#wall-stats"), /bodies 60/);

    // Touch targets on the phone; no text over text and no sideways scrolling at either width,
    // the stats shown and folded.
    if (width < 600) assert.deepEqual(await page.evaluate(smallTargets, TOUCH), [], "touch targets under 44 px");
    for (let fold = 0; fold < 2; fold++) {
      const { overlaps, count, scrollWidth } = await page.evaluate(overlapsAndWidth);
      assert.deepEqual(overlaps, [], `${width} px: ${count} overlapping text blocks`);
      assert.ok(scrollWidth <= width, `the page scrolls sideways: ${scrollWidth} px wide at ${width}`);
      await page.click("#wall-stats-toggle");
    }
  }
  assert.deepEqual(problems, []);
  await context.close();
}, { timeout: 120_000 });
