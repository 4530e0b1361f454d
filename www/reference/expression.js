// texla's element-wise expressions in JavaScript float64 (Math.*), the page's reference for
// what the GPU computes, WITHOUT eval or new Function: the page's Content-Security-Policy
// forbids both. Gpgpu.expressionProgram(expr) gives the expression in postfix (inputs a..f,
// numbers, then operations); this turns it into a function of the inputs' elements.

const UNARY = {
  neg: (x) => -x,
  inv: (x) => 1 / x,
  invsqrt: (x) => 1 / Math.sqrt(x),
  invcbrt: (x) => 1 / Math.cbrt(x),
};
const BINARY = {
  "+": (x, y) => x + y,
  "-": (x, y) => x - y,
  "*": (x, y) => x * y,
  "/": (x, y) => x / y,
  pow: Math.pow,
  atan2: Math.atan2,
  max: Math.max,
  min: Math.min,
};

/** `(...elements) => value` for the postfix `program` (an array of tokens). */
export function float64Expression(program) {
  // Each token becomes a step on a stack of numbers.
  const steps = program.map((token) => {
    const input = "abcdef".indexOf(token);
    if (token.length === 1 && input >= 0) return (stack, x) => stack.push(x[input]);
    if (token in BINARY) {
      const f = BINARY[token];
      return (stack) => {
        const y = stack.pop();
        stack.push(f(stack.pop(), y));
      };
    }
    const f = UNARY[token] ?? Math[token];
    if (typeof f === "function") return (stack) => stack.push(f(stack.pop()));
    const value = Number(token);
    if (Number.isNaN(value) && token !== "NaN") throw new Error(`unknown token ${token} in an expression program`);
    return (stack) => stack.push(value);
  });
  return (...x) => {
    const stack = [];
    for (const step of steps) step(stack, x);
    return stack[0];
  };
}

/** texla's expression `expr` (text) as a float64 function of its inputs' elements. */
export const referenceOf = (texla, expr) => float64Expression(texla.Gpgpu.expressionProgram(expr));
