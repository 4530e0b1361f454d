// The exercises' number reader (www/lessons/numbers.js), table by table, in Node without a
// browser: what it reads (text -> value, unit), what it refuses and why, and how it judges an
// answer against the right one (units, tolerance, the reason given when it is not accepted).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readNumber, splitList, judgeNumber, judgeList } from "../../www/lessons/numbers.js";
import { EXERCISES } from "../../www/lessons/exercises.js";

// text -> value (and unit, as written, where there is one)
const READS = [
  ["1.19e-4", 1.19e-4],
  ["1.19E-4", 1.19e-4],
  ["1.19 × 10⁻⁴", 1.19e-4],
  ["1.19×10⁻⁴", 1.19e-4],
  ["1.19 x 10^-4", 1.19e-4],
  ["1.19 X 10^-4", 1.19e-4],
  ["1.19*10^(-4)", 1.19e-4],
  ["1.19 * 10 ^ -4", 1.19e-4],
  ["1.19·10⁻⁴", 1.19e-4],
  ["1.19⋅10^−4", 1.19e-4],
  ["1.19e−4", 1.19e-4],
  ["1.19 × 10**-4", 1.19e-4],
  ["10^-4", 1e-4],
  ["10⁻⁴", 1e-4],
  ["2^-23", 2 ** -23],
  ["2⁻²³", 2 ** -23],
  ["2^(9 − 23)", 2 ** -14],
  ["2 × 1002 × 2⁻²⁴", 2 * 1002 * 2 ** -24],
  ["2004 / 16,777,216", 2004 / 16777216],
  ["1/3", 1 / 3],
  ["3/4", 0.75],
  ["-1/2", -0.5],
  ["−1/2", -0.5],
  ["½", 0.5],
  ["1,048,576", 1048576],
  ["1 048 576", 1048576],
  ["1\u2009048\u2009576", 1048576],
  ["1\u202f048\u202f576", 1048576],
  ["1\u00a0048\u00a0576", 1048576],
  ["16,384", 16384],
  ["199,440", 199440],
  ["1_000", 1000],
  ["1_000_000.5", 1000000.5],
  ["+5", 5],
  ["−5", -5],
  ["– 5", -5],
  [".5", 0.5],
  ["5.", 5],
  ["0.000119", 0.000119],
  ["  48.37  ", 48.37],
  ["≈ 1.19e-4", 1.19e-4],
  ["about 80", 80],
  ["x = 2.5", 2.5],
  ["0.5%", 0.5, "%"],
  ["50 %", 50, "%"],
  ["12 ms", 12, "ms"],
  ["4 bytes", 4, "bytes"],
  ["1.2 GB/s", 1.2, "GB/s"],
  ["25 m/s", 25, "m/s"],
  ["1024 fragments", 1024, "fragments"],
  ["80 texel fetches.", 80, "texel fetches"],
];

// text -> why it is refused
const REFUSES = [
  ["", /^not a number: the answer is empty/],
  ["abc", /^not a number: “abc”/],
  ["twelve", /^not a number/],
  ["1.19 × ", /^not a number.*where a number should be|^not a number.*ends/],
  ["(1 + 2", /^not a number.*parenthesis/],
  ["1/0", /^not a number.*not finite/],
  ["NaN", /^not a number/],
  ["Infinity", /^not a number/],
  ["5 2", /holds more than one/],
  ["2.5, 0", /holds more than one/],
  ["0,5", /^not a number.*decimal point.*0\.5/],
  ["1,0000", /holds more than one|decimal point/],
  ["12 m$", /^not a number.*not a unit/],
  ["e5", /^not a number/],
];

test("numbers.js reads every common way of writing a number", () => {
  for (const [text, value, unit] of READS) {
    const got = readNumber(text);
    assert.equal(got.error, undefined, `“${text}”: ${got.error}`);
    assert.ok(Math.abs(got.value - value) <= 1e-12 * Math.abs(value), `“${text}” read as ${got.value}, not ${value}`);
    assert.equal(got.unit?.text, unit, `“${text}”: unit`);
  }
});

test("numbers.js refuses what is not a number, and says why", () => {
  for (const [text, why] of REFUSES) {
    const got = readNumber(text);
    assert.ok(got.error, `“${text}” read as ${got.value}`);
    assert.match(got.error, why, `“${text}”`);
  }
});

test("numbers.js splits list answers", () => {
  const LISTS = [
    ["2.5, 0", ["2.5", "0"]],
    ["2.5,0", ["2.5", "0"]],
    ["(2.5; 0)", ["2.5", "0"]],
    ["x = (2.5, 0)", ["2.5", "0"]],
    ["[2.5, 0]", ["2.5", "0"]],
    ["x₁ = 2.5, x₂ = 0", ["2.5", "0"]],
    ["5 2 2", ["5", "2", "2"]],
    ["x=5 y=2 B", ["5", "2", "B"]],
    ["x = 5, y = 2, b", ["5", "2", "b"]],
    ["1,024, 16,384", ["1,024", "16,384"]],
    ["1.19 × 10⁻⁴; −2", ["1.19 * 10^(-4)", "-2"]],
  ];
  for (const [text, items] of LISTS) assert.deepEqual(splitList(text), items, `“${text}”`);
});

// [text, right answer, options] -> accepted (true) or the reason it is not (a pattern)
const JUDGED = [
  ["1.19 × 10⁻⁴", 2004 / 2 ** 24, { tol: 0.01 }, true],
  ["0.0119 %", 2004 / 2 ** 24, { tol: 0.01 }, true],
  ["1.19e-7", 2004 / 2 ** 24, { tol: 0.01 }, /^off by a factor of about 10\^-3 \(check the exponent\)$/],
  ["1.19e-2", 2004 / 2 ** 24, { tol: 0.01 }, /^off by a factor of about 10\^2 /],
  ["-1.19e-4", 2004 / 2 ** 24, { tol: 0.01 }, /^wrong sign \(the size is right\)$/],
  ["-3", 2004 / 2 ** 24, { tol: 0.01 }, /^wrong sign$/],
  ["1.25e-4", 2004 / 2 ** 24, { tol: 0.01 }, /^close but outside the tolerance: 4\.6\d*% off, and 1% is allowed$/],
  ["2004", 2004 / 2 ** 24, { tol: 0.01 }, /^off by a factor of 2\^24 \(check the power of two\)$/],
  ["2^-13", 2 ** -14, { tol: 1e-3 }, /^off by a factor of 2 \(check the power of two\)$/],
  ["5", 2 ** -14, { tol: 1e-3 }, /is not the answer/],
  ["4 bytes", 1.19e-4, { tol: 0.01 }, /^wrong unit: the answer is a plain number, not a size in bytes \(bytes\)$/],
  ["1024 fragments", 1024, { unit: "fragments", whole: true }, true],
  ["1024 fragment", 1024, { unit: "fragments", whole: true }, true],
  ["1,024", 1024, { unit: "fragments", whole: true }, true],
  ["1024 bytes", 1024, { unit: "fragments", whole: true }, /^wrong unit: the question counts fragments, not a size in bytes \(bytes\)$/],
  ["1024 texels", 1024, { unit: "fragments", whole: true }, /^wrong unit: the question counts fragments, not texels$/],
  ["1023", 1024, { unit: "fragments", whole: true }, /^close but outside the tolerance: this answer is exact$/],
  ["1024.5", 1024, { unit: "fragments", whole: true }, /not a whole number/],
  ["4096", 1024, { unit: "fragments", whole: true }, /^off by a factor of 2\^2 /],
  ["80 texel fetches", 80, { unit: "fetches", whole: true }, true],
  ["16384 outputs", 16384, { unit: ["elements", "outputs"], whole: true }, true],
  ["12 ms", 12, { unit: "ms" }, true],
  ["12", 12, { unit: "ms" }, true],
  ["0.012 s", 12, { unit: "ms" }, true],
  ["12000 µs", 12, { unit: "ms" }, true],
  ["12 milliseconds", 12, { unit: "ms" }, true],
  ["12 s", 12, { unit: "ms" }, /^off by a factor of about 10\^3 /],
  ["12 MB", 12, { unit: "ms" }, /^wrong unit: MB is a size in bytes, and the answer is a time \(ms\)$/],
  ["1.2 GB/s", 1200, { unit: "MB/s" }, true],
  ["1200 MB/s", 1.2, { unit: "GB/s" }, true],
  ["1.2 GB", 1.2, { unit: "GB/s" }, /^wrong unit: GB is a size in bytes, and the answer is a bandwidth \(GB\/s\)$/],
  ["4 KiB", 4096, { unit: "bytes" }, true],
  ["4 kB", 4000, { unit: "B" }, true],
  ["50 %", 0.5, {}, true],
  ["0.5%", 0.005, {}, true],
  ["25 m/s", 25, { unit: "m/s" }, true],
  ["48.37", 48.374, { tol: 0.01 }, true],
  ["47", 48.374, { tol: 0.01 }, /^close but outside the tolerance/],
  ["hello", 48.374, { tol: 0.01 }, /^not a number: “hello”/],
];

test("numbers.js judges answers and says why one is not accepted", () => {
  for (const [text, want, options, expected] of JUDGED) {
    const r = judgeNumber(text, want, options);
    if (expected === true) assert.deepEqual(r, { right: true }, `“${text}” against ${want}: ${r.reason}`);
    else {
      assert.equal(r.right, false, `“${text}” against ${want} accepted`);
      assert.match(r.reason, expected, `“${text}” against ${want}`);
    }
  }
  assert.deepEqual(judgeList("x = (2.5, 0)", [2.5, 0]), { right: true });
  assert.match(judgeList("2.5", [2.5, 0], { names: ["x₁", "x₂"] }).reason, /^2 numbers are asked for \(x₁, x₂\), and “2\.5” holds 1$/);
  assert.match(judgeList("2.5, -1", [2.5, 0], { names: ["x₁", "x₂"] }).reason, /^x₂: /);
});

test("every exercise accepts its right answer in every common notation, and says why not otherwise", () => {
  const cases = {
    fragments: [["1024", true], ["1,024 fragments", true], ["2^10", true], ["1.024e3", true], ["256", /factor of 2\^-2/], ["1024 bytes", /wrong unit/]],
    texel: [["5, 2, b", true], ["(5, 2, 2)", true], ["x = 5, y = 2, channel b", true], ["5 2 B", true], ["5, 2, r", /channel/], ["2, 5, b", /x/], ["5, 2", /x, y and a channel/]],
    fetches: [["80", true], ["80 fetches", true], ["16 × 5", true], ["8e1", true], ["64", /close|not the answer/]],
    bound: [["1.19 × 10⁻⁴", true], ["1.19e-4", true], ["1.19 x 10^-4", true], ["1.19*10^(-4)", true], ["1.19·10⁻⁴", true], ["2 × 1002 × 2⁻²⁴", true], ["2004 / 16,777,216", true], ["0.0119%", true], ["1.19e-7", /10\^-3/], ["-1.19e-4", /wrong sign/], ["1.19e-4 ms", /wrong unit/]],
    targets: [["12", true], ["12 fetches", true], ["4 + 8", true], ["16", /not the answer|close/]],
    workgroup: [["16384", true], ["16,384", true], ["16 384", true], ["16\u2009384", true], ["2^14", true], ["2¹⁴", true], ["128 × 128", true], ["256", /factor/]],
    passes: [["6", true], ["6 passes", true], ["5", /exact|not the answer/]],
    ulp: [["6.1035 × 10⁻⁵", true], ["2^-14", true], ["2⁻¹⁴", true], ["6.1035e-5", true], ["0.000061035", true], ["2^(9 − 23)", true], ["2^-13", /factor of 2 /], ["6.1035e-4", /10\^1/]],
    condition: [["48.37", true], ["48.4", true], ["≈ 48.37", true], ["47", /close/], ["−48.37", /wrong sign/]],
    lcp: [["x = (2.5, 0)", true], ["2.5, 0", true], ["(2.5; 0)", true], ["5/2, 0", true], ["x₁ = 2.5, x₂ = 0", true], ["2.5", /2 numbers/], ["0, 2.5", /x₁/]],
    blocks: [["7", true], ["7 blocks", true], ["9", /not the answer|close/]],
    nmf: [["199,440", true], ["199 440", true], ["199440 numbers", true], ["144 × (361 + 1024)", true], ["1.9944e5", true], ["369664", /not the answer/]],
  };
  for (const [name, list] of Object.entries(cases)) {
    for (const [text, expected] of list) {
      const r = EXERCISES[name].judge(text);
      if (expected === true) assert.equal(r.right, true, `${name}: “${text}” refused: ${r.reason}`);
      else {
        assert.equal(r.right, false, `${name}: “${text}” accepted`);
        assert.match(r.reason, expected, `${name}: “${text}”: ${r.reason}`);
      }
      assert.equal(EXERCISES[name].check(text), r.right);
    }
  }
});
