// Reading the page's form fields: each reader returns the field's number or throws a message
// naming the field, which the section shows in place of its result.

const $ = (id) => document.getElementById(id);

/** Reads a number from an input, or throws a message naming the field. */
export function number(id, name) {
  const v = Number($(id).value);
  if (!Number.isFinite(v)) throw new Error(`${name} must be a number, got "${$(id).value}"`);
  return v;
}

/** Reads a whole number in [lo, hi] from an input, or throws a message naming the field. */
export function whole(id, name, lo, hi) {
  const v = Number($(id).value);
  if (!Number.isInteger(v) || v < lo || v > hi) {
    throw new Error(`${name} must be a whole number from ${lo} to ${hi}, got "${$(id).value}"`);
  }
  return v;
}

export function positive(id, name) {
  const v = Number($(id).value);
  if (!(v > 0)) throw new Error(`${name} must be a positive number, got "${$(id).value}"`);
  return v;
}
