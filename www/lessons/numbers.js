// Numbers as people write them, for the exercises: read one number (or a list of them) from an
// answer box, and judge it against the right answer, saying why when it is not accepted. Pure:
// no DOM, no GPU; tests/e2e/numbers.test.mjs lists what it reads and what it refuses.
//
// Read: 1.19e-4, 1.19E-4, 1.19 × 10⁻⁴, 1.19 x 10^-4, 1.19*10^(-4), 1.19·10⁻⁴, 10**-4, 2^-23,
// 2⁻²³, 1/3, -1/2, ½, 2 × 1002 × 2⁻²⁴ (numbers joined by + − × / and powers), 1,048,576,
// 1 048 576 (normal, thin or no-break spaces), 1_000, .5, 5., +5, −5 (Unicode minus), and a
// unit after the number: 0.5%, 12 ms, 4 bytes, 1.2 GB/s, 1024 fragments.

const SUPERSCRIPTS = { "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9", "⁻": "-", "⁺": "+", "⁽": "(", "⁾": ")" };
const FRACTIONS = { "½": "(1/2)", "⅓": "(1/3)", "⅔": "(2/3)", "¼": "(1/4)", "¾": "(3/4)", "⅛": "(1/8)" };

/** The text with one spelling for each sign: "-" for every minus and dash, "*" for every
 * multiplication sign, "^" for powers (superscripts become "^(…)"), " " for every space. */
export function normalize(text) {
  return String(text)
    .replace(/[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g, " ")
    .replace(/[\u2212\u2012\u2013\u2014\ufe63\uff0d]/g, "-")
    .replace(/\*\*/g, "^")
    .replace(/[×✕⋅·∙]/g, "*")
    .replace(/[÷⁄∕]/g, "/")
    .replace(/[½⅓⅔¼¾⅛]/g, (f) => FRACTIONS[f])
    .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺⁽⁾]+/g, (s) => `^(${[...s].map((c) => SUPERSCRIPTS[c]).join("")})`)
    .trim();
}

// A number token: digits grouped by commas, spaces or underscores (each group of three after
// the first), or plain; a decimal part; an exponent written with e.
const NUMBER = /(?:[1-9]\d{0,2}(?:,\d{3})+(?!\d)|[1-9]\d{0,2}(?: \d{3})+(?![\d,])|\d+(?:_\d+)+|\d+)(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?/y;

/** Splits `s` into tokens (numbers and the signs + - * / ^ ( )) up to the first thing that is
 * none of them: that rest is the unit. An x between two numbers is a multiplication sign. */
function tokenize(s) {
  const tokens = [];
  let at = 0;
  for (;;) {
    while (s[at] === " ") at++;
    if (at >= s.length) break;
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(s);
    const last = tokens.at(-1);
    const afterValue = last && (last.type === "number" || last.text === ")");
    if (m && !afterValue) {
      tokens.push({ type: "number", text: m[0], value: Number(m[0].replace(/[ ,_]/g, "")) });
      at += m[0].length;
    } else if ("+-*/^()".includes(s[at])) {
      tokens.push({ type: "sign", text: s[at] });
      at++;
    } else if ((s[at] === "x" || s[at] === "X") && afterValue && /^\s*[\d.(+-]/.test(s.slice(at + 1))) {
      tokens.push({ type: "sign", text: "*" });
      at++;
    } else {
      break;
    }
  }
  return { tokens, rest: s.slice(at).trim() };
}

/** Evaluates the tokens as an expression: + and − (binary and unary), × and /, powers (right to
 * left, a minus allowed in the exponent: 2^-23), parentheses. Throws on anything else. */
function evaluate(tokens) {
  let i = 0;
  const peek = () => tokens[i]?.text;
  const take = (t) => (peek() === t ? (i++, true) : false);
  const sum = () => {
    let v = product();
    for (;;) {
      if (take("+")) v += product();
      else if (take("-")) v -= product();
      else return v;
    }
  };
  const product = () => {
    let v = unary();
    for (;;) {
      if (take("*")) v *= unary();
      else if (take("/")) v /= unary();
      else return v;
    }
  };
  const unary = () => (take("-") ? -unary() : take("+") ? unary() : power());
  const power = () => {
    const base = atom();
    return take("^") ? base ** unary() : base;
  };
  const atom = () => {
    const t = tokens[i++];
    if (t?.type === "number") return t.value;
    if (t?.text === "(") {
      const v = sum();
      if (!take(")")) throw new Error("a parenthesis is not closed");
      return v;
    }
    throw new Error(t ? `“${t.text}” where a number should be` : "it ends where a number should be");
  };
  const v = sum();
  if (i < tokens.length) throw new Error(tokens[i].type === "number" ? "more than one number" : `“${tokens[i].text}” is left over`);
  return v;
}

// Units: SI prefixes on seconds, metres, grams, bytes, bits and flops; binary prefixes on bytes.
const PREFIXES = { n: 1e-9, µ: 1e-6, μ: 1e-6, u: 1e-6, m: 1e-3, c: 1e-2, "": 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const BASES = {
  s: "time", sec: "time", second: "time", seconds: "time",
  m: "length", metre: "length", metres: "length", meter: "length", meters: "length",
  g: "mass", gram: "mass", grams: "mass",
  B: "size", byte: "size", bytes: "size",
  b: "bit", bit: "bit", bits: "bit",
  flop: "flop", flops: "flop", FLOP: "flop",
};
const DIMENSIONS = { time: "a time", length: "a length", mass: "a mass", size: "a size in bytes", bit: "a number of bits", flop: "a number of flops", "size/time": "a bandwidth", "length/time": "a speed", "flop/time": "a rate of flops", "bit/time": "a bit rate", "": "a plain number" };

const WORD_PREFIXES = { nano: "n", micro: "µ", milli: "m", centi: "c", kilo: "k", mega: "M", giga: "G", tera: "T", kibi: "Ki", mebi: "Mi", gibi: "Gi", tebi: "Ti" };

/** One side of a unit ("ms", "GiB", "bytes", "milliseconds"): { dimension, scale }, or null. */
function simpleUnit(word) {
  if (word in BASES) return { dimension: BASES[word], scale: 1 };
  const long = Object.keys(WORD_PREFIXES).find((p) => word.toLowerCase().startsWith(p) && word.slice(p.length).toLowerCase() in BASES);
  if (long) return { dimension: BASES[word.slice(long.length).toLowerCase()], scale: PREFIXES[WORD_PREFIXES[long]] };
  for (const p of ["Ki", "Mi", "Gi", "Ti", "n", "µ", "μ", "u", "m", "c", "k", "K", "M", "G", "T"]) {
    if (!word.startsWith(p)) continue;
    const base = word.slice(p.length);
    const binary = p.endsWith("i");
    // FLOPS is flops per second; binary prefixes are for bytes only.
    if (/^FLOPS$/i.test(base)) return { dimension: "flop/time", scale: PREFIXES[p] };
    if (base in BASES && (!binary || BASES[base] === "size")) return { dimension: BASES[base], scale: PREFIXES[p] };
  }
  return null;
}

/** A unit as written after a number: { dimension, scale } (scale to the dimension's base: seconds,
 * metres, grams, bytes, …), { dimension: "", scale: 0.01 } for "%", or { noun } for a word that
 * names what is counted ("fragments"); null for none. */
export function parseUnit(text) {
  const u = text.replace(/[.!]+$/, "").trim();
  if (!u) return null;
  if (u === "%") return { dimension: "", scale: 0.01, text: u };
  if (/^FLOPS$/i.test(u)) return { dimension: "flop/time", scale: 1, text: u };
  const parts = u.split(/\s*(?:\/|\bper\b)\s*/);
  if (parts.length <= 2) {
    const [top, bottom] = parts.map(simpleUnit);
    if (top && parts.length === 1) return { ...top, text: u };
    if (top && bottom) return { dimension: `${top.dimension}/${bottom.dimension}`, scale: top.scale / bottom.scale, text: u };
  }
  if (/^[\p{L}][\p{L}\s-]*$/u.test(u)) return { noun: singular(u.toLowerCase()), text: u };
  return { invalid: true, text: u };
}

const singular = (noun) => noun.replace(/(ches|shes|sses|xes)$/, (e) => e.slice(0, -2)).replace(/(?<!s)s$/, "");

/**
 * Reads one number, as people write it, with the unit after it if any: resolves to { value,
 * unit } (unit as parseUnit gives it, or null), or { error } saying why it is not a number.
 */
export function readNumber(text) {
  let s = normalize(text);
  // "≈ 1.19e-4", "about 80", "x = 2.5": what comes before the number is not part of it.
  s = s.replace(/^(?:[≈~=]|about|approx(?:imately)?\.?)\s*/i, "").replace(/^[\p{L}][\p{L}\p{N}_]*\s*[=:]\s*/u, "").replace(/^[≈~]\s*/, "");
  if (!s) return { error: "not a number: the answer is empty" };
  const { tokens, rest } = tokenize(s);
  if (!tokens.length) return { error: `not a number: “${text.trim()}”` };
  let value;
  try {
    value = evaluate(tokens);
  } catch (e) {
    return { error: `not a number: “${text.trim()}” (${e.message})` };
  }
  if (/^(?:[,;]\s*)?[\d.+-]/.test(rest)) {
    const decimalComma = /^\d+,\d+$/.test(s);
    return { error: decimalComma ? `not a number: “${text.trim()}”: write the decimal point as a point (${s.replace(",", ".")})` : `one number is asked for, and “${text.trim()}” holds more than one` };
  }
  if (!Number.isFinite(value)) return { error: `not a number: “${text.trim()}” is not finite` };
  const unit = parseUnit(rest);
  if (unit?.invalid) return { error: `not a number: “${text.trim()}” (“${rest}” is not a unit)` };
  return { value, unit };
}

/**
 * Splits a list answer ("2.5, 0", "(2.5; 0)", "x = (2.5, 0)", "5 2 2", "x₁ = 2.5, x₂ = 0") into
 * its items' texts: at semicolons, at commas that do not group digits, else at spaces.
 */
export function splitList(text) {
  let s = normalize(text).replace(/^[\p{L}][\p{L}\p{N}_]*\s*=\s*(?=[(\[])/u, "");
  if (/^[(\[].*[)\]]$/.test(s)) s = s.slice(1, -1);
  // A comma followed by exactly three digits (and no more) inside a number groups digits.
  const parts = s.split(/\s*;\s*|\s*,(?!\d{3}(?!\d))\s*/).filter((p) => p !== "");
  const items = parts.length > 1 ? parts : s.split(/\s+(?![=:])(?<![=:]\s*)/).filter((p) => p !== "");
  return items.map((p) => p.replace(/^[\p{L}][\p{L}\p{N}_]*\s*[=:]\s*/u, "").trim());
}

const describe = (unit) => (unit.noun ? `a number of ${unit.text}` : DIMENSIONS[unit.dimension] ?? `in ${unit.text}`);
const nouns = (want) => [want].flat().map((n) => singular(n.toLowerCase()));
const show = (v) => (Number.isInteger(v) || Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6 ? String(+v.toPrecision(6)) : v.toExponential(3));
const factor = (k, base) => (base === 2 && k === 1 ? "2" : `${base}^${k}`);

/**
 * The answer `got` ({ value, unit }) in the exercise's unit, or { error } explaining a unit that
 * does not fit. `unit` is the exercise's: null (a plain number), a physical unit ("ms", "GB/s"),
 * or what it counts ("fragments", or several names: ["elements", "outputs"]).
 */
export function inUnit(got, unit) {
  const mine = got.unit;
  if (!mine) return { value: got.value };
  if (unit == null) {
    if (mine.dimension === "") return { value: got.value * mine.scale };
    return { error: `wrong unit: the answer is a plain number, not ${describe(mine)} (${mine.text})` };
  }
  const theirs = typeof unit === "string" ? parseUnit(unit) : null;
  if (theirs && !theirs.noun) {
    if (mine.dimension === theirs.dimension) return { value: (got.value * mine.scale) / theirs.scale };
    return { error: `wrong unit: ${mine.text} is ${describe(mine)}, and the answer is ${describe(theirs)} (${unit})` };
  }
  const counted = nouns(unit);
  if (mine.noun && counted.some((n) => mine.noun === n || mine.noun.endsWith(` ${n}`))) return { value: got.value };
  return { error: `wrong unit: the question counts ${[unit].flat()[0]}, not ${mine.noun ? mine.text : `${describe(mine)} (${mine.text})`}` };
}

/**
 * Why `got` (a number in the exercise's unit) is not `want` within `tol` (relative), or null if
 * it is: "wrong sign", "off by a factor of about 10^k (check the exponent)", "off by a factor of
 * 2^k", "close but outside the tolerance", "a count is a whole number", or "not the answer".
 */
export function whyNot(got, want, { tol = 0, whole = false } = {}) {
  const slack = Math.max(tol, 1e-12) * Math.abs(want) + (want === 0 ? 1e-12 : 0);
  if (Math.abs(got - want) <= slack) return null;
  if (whole && !Number.isInteger(got)) return `${show(got)} is not a whole number, and this counts things`;
  if (want !== 0 && got !== 0 && Math.sign(got) !== Math.sign(want)) {
    return Math.abs(Math.abs(got) - Math.abs(want)) <= slack ? "wrong sign (the size is right)" : "wrong sign";
  }
  if (want !== 0 && got !== 0) {
    const ratio = got / want;
    const near = (base, within) => {
      const k = Math.round(Math.log(ratio) / Math.log(base));
      return k !== 0 && Math.abs(ratio / base ** k - 1) <= within ? k : 0;
    };
    const k10 = near(10, Math.max(tol, 0.05));
    if (k10) return `off by a factor of about ${factor(k10, 10)} (check the exponent)`;
    const k2 = near(2, Math.max(tol, 1e-3));
    if (k2) return `off by a factor of ${factor(k2, 2)} (check the power of two)`;
    const rel = Math.abs(got - want) / Math.abs(want);
    if (rel <= Math.max(10 * tol, 0.05)) {
      return tol > 0 ? `close but outside the tolerance: ${show(100 * rel)}% off, and ${show(100 * tol)}% is allowed` : "close but outside the tolerance: this answer is exact";
    }
  }
  return `${show(got)} is not the answer`;
}

/**
 * Judges a one-number answer: { right: true } or { right: false, reason }. Options: `tol`
 * (relative, default 0: exact), `unit` (see inUnit), `whole` (the answer counts things).
 */
export function judgeNumber(text, want, options = {}) {
  const got = readNumber(text);
  if (got.error) return { right: false, reason: got.error };
  const value = inUnit(got, options.unit);
  if (value.error) return { right: false, reason: value.error };
  const reason = whyNot(value.value, want, options);
  return reason ? { right: false, reason } : { right: true };
}

/** Judges a list answer ("2.5, 0") against `wants`, item by item, named by `names`. */
export function judgeList(text, wants, { names = wants.map((_, i) => `number ${i + 1}`), ...options } = {}) {
  const items = splitList(text);
  if (items.length !== wants.length) {
    return { right: false, reason: `${wants.length} numbers are asked for (${names.join(", ")}), and “${text.trim()}” holds ${items.length}` };
  }
  for (const [i, item] of items.entries()) {
    const r = judgeNumber(item, wants[i], options);
    if (!r.right) return { right: false, reason: `${names[i]}: ${r.reason}` };
  }
  return { right: true };
}
