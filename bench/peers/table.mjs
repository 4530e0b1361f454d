// Prints a recorded peer run (www/data/peers-swiftshader.json, or the file given) as the Markdown tables
// of the README's Performance section: node bench/peers/table.mjs [results.json]
import { readFile } from "node:fs/promises";

const file = process.argv[2] ?? new URL("../../www/data/peers-swiftshader.json", import.meta.url);
const r = JSON.parse(await readFile(file, "utf8"));
const f = (v, d = 2) => (v === null || v === undefined ? "–" : v.toFixed(d));
const names = [...new Set(r.runs.map((x) => x.name))];
const at = (name, n) => r.runs.find((x) => x.name === name && x.n === n);
const label = (name) => (name.startsWith("texla") ? `**${name}**` : name);
const notes = [];
const mark = (x) => {
  if (!x?.note) return "";
  let i = notes.indexOf(x.note);
  if (i < 0) i = notes.push(x.note) - 1;
  return ` [${i + 1}]`;
};

console.log(`Recorded ${r.date.slice(0, 16).replace("T", " ")} UTC with \`${r.pkg ?? "pkg/"}\`; ${r.browser}; ${r.machine.summary}; load average (1, 5, 15 min) ${r.machine.loadAverage?.before?.join(", ") ?? "?"} before, ${r.machine.loadAverage?.after?.join(", ") ?? "?"} after.\n`);
const head = (title) => {
  console.log(`| ${title} | ${r.sizes.map((n) => `n = ${n}`).join(" | ")} |`);
  console.log(`|---|${r.sizes.map(() => "---:").join("|")}|`);
};
head("GFLOPS, end-to-end / resident (max relative error vs float64)");
const err = (x) => (typeof x.maxRel === "number" ? ` (${x.maxRel.toExponential(1)})` : "");
for (const name of names) console.log(`| ${label(name)} | ${r.sizes.map((n) => { const x = at(name, n); return x ? `${f(x.e2e)} / ${f(x.resident)}${err(x)}${mark(x)}` : "–"; }).join(" | ")} |`);
console.log("");
head("texla's best / the best peer");
for (const key of ["e2e", "resident"]) {
  console.log(`| ${key === "e2e" ? "end-to-end" : "resident"} | ${r.ratios.map((q) => (q[key].ratio === null ? "–" : `**${q[key].ratio.toFixed(2)}×**`)).join(" | ")} |`);
}
console.log("");
head("peak GPU MiB (max relative error)");
for (const name of names.filter((x) => x !== "JavaScript float64")) {
  console.log(`| ${label(name)} | ${r.sizes.map((n) => { const x = at(name, n); return x?.peakBytes ? `${(x.peakBytes / 2 ** 20).toFixed(1)} (${x.maxRel.toExponential(1)})` : "–"; }).join(" | ")} |`);
}
console.log("");
notes.forEach((t, i) => console.log(`[${i + 1}] ${t}  `));
