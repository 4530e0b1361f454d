// Every ```js block of README.md and docs/*.md runs as pasted, on both backends.
//
// Each block is a complete module (it imports ./pkg/texla.js as a page at the repository root
// does, and opens its own Gpgpu). It is served at the root of the served repository and
// imported in a fresh page: once in a Chromium with WebGPU on, where "auto" picks WebGPU, and
// once with WebGPU off, where "auto" falls back to WebGL2. pkg/texla.js is served with a few
// lines appended that record the backend of every Gpgpu a block opens, so each run asserts
// which backend ran. A block that throws or rejects fails with its file and line.
//
// A block that cannot run here opts out on its fence: ```js no-run: the reason. The test
// counts those and prints each with its reason. DOCS_LOG=1 prints what each block logged.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve, launch } from "./browser.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const LANGUAGES = new Set(["js", "javascript", "mjs"]);
const BLOCK_TIMEOUT_MS = 180_000;

/** The fenced code blocks of a Markdown text (CommonMark fences: ``` or ~~~, three or more,
 * closed by a fence of the same character at least as long, so a block inside a longer fence
 * is not a block): `{ line, info, code }` with `line` the 1-based line of the opening fence. */
export function fencedBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open || (open[2][0] === "`" && open[3].includes("`"))) continue;
    const [, indent, fence, info] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    blocks.push({ line: i + 1, info: info.trim(), code: body.join("\n") });
    i = j;
  }
  return blocks;
}

/** The JavaScript blocks of README.md and docs/*.md: `{ file, line, code, skip }`, where
 * `skip` is the reason given after `no-run` (an empty reason is an error). */
async function jsBlocks() {
  const docs = (await readdir(path.join(root, "docs"))).filter((f) => f.endsWith(".md")).sort();
  const files = ["README.md", ...docs.map((f) => `docs/${f}`)];
  const out = [];
  for (const file of files) {
    for (const b of fencedBlocks(await readFile(path.join(root, file), "utf8"))) {
      const [language, ...rest] = b.info.split(/\s+/);
      if (!LANGUAGES.has(language)) continue;
      const flags = rest.join(" ");
      const noRun = /^no-run\b:?\s*(.*)$/.exec(flags);
      if (flags && !noRun) throw new Error(`${file}:${b.line}: unknown fence flags "${flags}": the only one is "no-run: reason"`);
      if (noRun && !noRun[1]) throw new Error(`${file}:${b.line}: a no-run block must say why: \`\`\`js no-run: the reason`);
      out.push({ file, line: b.line, code: b.code, skip: noRun ? noRun[1] : null });
    }
  }
  return out;
}

/** Appended to pkg/texla.js as served: records the backend asked for and the backend given of
 * every Gpgpu the page opens. */
const RECORDER = `
;{
  const create = Gpgpu.create;
  globalThis.__docsGpgpus = [];
  Gpgpu.create = async function (...args) {
    const gpu = await create.apply(this, args);
    globalThis.__docsGpgpus.push({ asked: args[0] ?? "auto", backend: gpu.backend });
    return gpu;
  };
}
`;

const blocks = await jsBlocks();
const runnable = blocks.filter((b) => !b.skip);
const skipped = blocks.filter((b) => b.skip);

test("README.md and docs/*.md have js blocks, and every no-run block says why", () => {
  assert.ok(blocks.some((b) => b.file === "README.md"), "README.md has no ```js block");
  for (const b of skipped) console.log(`no-run: ${b.file}:${b.line}: ${b.skip}`);
  console.log(`${blocks.length} js blocks: ${runnable.length} run, ${skipped.length} no-run`);
});

test("the fence parser finds blocks inside lists and leaves blocks inside longer fences alone", () => {
  const text = ["````text", "```js", "inner", "```", "````", "- item", "  ```js no-run: why", "  a;", "  ```"].join("\n");
  assert.deepEqual(fencedBlocks(text), [
    { line: 1, info: "text", code: "```js\ninner\n```" },
    { line: 7, info: "js no-run: why", code: "a;" },
  ]);
});

for (const [expected, options] of [["webgpu", { webgpu: true }], ["webgl2", { webgpu: false }]]) {
  test(`every js block runs as pasted, WebGPU ${options.webgpu ? "on" : "off"}, auto picking ${expected} (${expected})`, async (t) => {
    const server = await serve();
    const browser = await launch(options);
    try {
      let opened = 0;
      for (const [i, block] of runnable.entries()) {
        await t.test(`${block.file}:${block.line} (${expected})`, async () => {
          const { gpgpus, logs } = await runBlock(browser, server, block, i);
          if (process.env.DOCS_LOG) console.log(`${block.file}:${block.line} on ${expected}\n${logs}`);
          opened += gpgpus.length;
          for (const g of gpgpus) {
            const want = g.asked === "auto" ? expected : g.asked;
            assert.equal(g.backend, want, `${block.file}:${block.line}: Gpgpu.create(${JSON.stringify(g.asked)}) ran ${g.backend}, expected ${want}\n${logs}`);
          }
        });
      }
      assert.ok(opened > 0, "no block opened a Gpgpu");
    } finally {
      await browser.close();
      server.close();
    }
  });
}

/** Imports `block` as a module at the served root in a fresh page; resolves to the Gpgpus it
 * opened and its console output, or throws with the block's file and line. */
async function runBlock(browser, server, block, index) {
  const page = await browser.newPage();
  const logs = [];
  const errors = [];
  page.on("console", (m) => logs.push(`  console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => errors.push(e));
  try {
    const name = `docs-block-${index}.mjs`;
    await page.route(`${server.url}docs-page.html`, (route) =>
      route.fulfill({ contentType: "text/html", body: "<!doctype html><meta charset=utf-8><title>docs block</title><body></body>" }));
    await page.route(`${server.url}${name}`, (route) => route.fulfill({ contentType: "text/javascript", body: block.code }));
    await page.route(`${server.url}pkg/texla.js`, async (route) => {
      const response = await route.fetch();
      route.fulfill({ response, body: (await response.text()) + RECORDER });
    });
    await page.goto(`${server.url}docs-page.html`);
    const run = page.evaluate(async (url) => {
      try {
        await import(url);
        return null;
      } catch (e) {
        return { message: e instanceof Error ? e.message : `a non-Error was thrown: ${String(e)}`, stack: String(e?.stack ?? "") };
      }
    }, `/${name}`);
    let timer;
    const failure = await Promise.race([
      run,
      new Promise((resolve) => (timer = setTimeout(() => resolve({ message: `did not finish in ${BLOCK_TIMEOUT_MS / 1000} s`, stack: "" }), BLOCK_TIMEOUT_MS))),
    ]).finally(() => clearTimeout(timer));
    // A promise a block left unawaited may reject a little later.
    await new Promise((r) => setTimeout(r, 50));
    const where = (stack) => {
      const m = new RegExp(`${name}:(\\d+):(\\d+)`).exec(stack);
      return m ? `${block.file}:${block.line + Number(m[1])} (line ${m[1]} of the block)` : `${block.file}:${block.line} (the block)`;
    };
    if (failure) throw new Error(`${where(failure.stack)} threw: ${failure.message}\n${logs.join("\n")}`);
    if (errors.length) throw new Error(`${where(errors[0].stack ?? "")}: an error nothing caught: ${errors[0].message}\n${logs.join("\n")}`);
    const gpgpus = await page.evaluate(() => globalThis.__docsGpgpus ?? []);
    return { gpgpus, logs: logs.join("\n") };
  } finally {
    await page.close();
  }
}
