// Prints a recorded peer run (bench/peers/results.json, or the file given) as the Markdown table
// of the README's Performance section: node bench/peers/table.mjs [results.json]
import { readFile } from "node:fs/promises";

const file = process.argv[2] ?? new URL("./results.json", import.meta.url);
const r = JSON.parse(await readFile(file, "utf8"));
const f = (v, d = 2) => (v === null || v === undefined ? "–" : v.toFixed(d));
const mib = (v) => (v === null || v === undefined ? "–" : (v / 2 ** 20).toFixed(1));

console.log(`Recorded ${r.date.slice(0, 16).replace("T", " ")} UTC; ${r.browser}; ${r.machine.summary}; load average before ${r.machine.loadAverage?.before?.join(", ") ?? "?"}, after ${r.machine.loadAverage?.after?.join(", ") ?? "?"}.\n`);
console.log("| n | path / peer | end-to-end GFLOPS | resident GFLOPS | max rel. error | peak GPU MiB | note |");
console.log("|---:|---|---:|---:|---:|---:|---|");
for (const n of r.sizes) {
  for (const x of r.runs.filter((y) => y.n === n)) {
    const name = x.kind === "texla" ? `**${x.name}**` : x.name;
    const err = x.maxRel === undefined || x.maxRel === null ? "–" : x.maxRel.toExponential(1);
    console.log(`| ${n} | ${name} | ${f(x.e2e)} | ${f(x.resident)} | ${err} | ${mib(x.peakBytes)} | ${x.note ?? ""} |`);
  }
}
console.log("\n| n | texla best / best peer, end-to-end | resident |");
console.log("|---:|---|---|");
const say = (q) => (q.ratio === null ? "not measured" : `**${q.ratio.toFixed(2)}×** (${q.texla} ${f(q.texlaGflops)} / ${q.peer} ${f(q.peerGflops)})`);
for (const q of r.ratios) console.log(`| ${q.n} | ${say(q.e2e)} | ${say(q.resident)} |`);
