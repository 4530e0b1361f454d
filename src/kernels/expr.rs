//! Element-wise expressions over matrices, fused into ONE fragment-shader pass.
//!
//! `A * cos(B) / sqrt(C)` (the thesis, Figure 5) becomes one kernel that fetches one texel of each
//! input and evaluates the whole expression on it, instead of one pass per function with a
//! temporary texture in between. An [`Expr`] is parsed from text ([`Expr::parse`]) or built in
//! code, emitted as shader source ([`Expr::shader`], the same text for WGSL and GLSL: each
//! function `f` is a helper `f_f` defined for both languages in `shaders/elementwise/functions.*`), and evaluated in
//! float64 on the CPU ([`Expr::eval`]) as the reference.

use std::fmt;

use super::functions::{Func, Func2};
use super::{INPUT_NAMES, MAX_INPUTS, MAX_PARAMS};
use crate::error::{Error, Result};

/// An element-wise expression over input matrices `a`, `b`, ... and constants.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// Input matrix number i (`a` is 0).
    Input(usize),
    /// A constant, passed to the shader as a parameter so that new values reuse the pipeline.
    Const(f32),
    /// f(x)
    Call(Func, Box<Expr>),
    /// f(x, y)
    Call2(Func2, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// `f(x)`.
    pub fn call(f: Func, x: Expr) -> Expr {
        Expr::Call(f, Box::new(x))
    }

    /// `f(x, y)`.
    pub fn call2(f: Func2, x: Expr, y: Expr) -> Expr {
        Expr::Call2(f, Box::new(x), Box::new(y))
    }

    /// Number of inputs the expression reads: one more than its highest input index.
    pub fn input_count(&self) -> usize {
        match self {
            Expr::Input(i) => i + 1,
            Expr::Const(_) => 0,
            Expr::Call(_, x) => x.input_count(),
            Expr::Call2(_, x, y) => x.input_count().max(y.input_count()),
        }
    }

    /// The constants, in the order the shader reads them as parameters.
    pub fn constants(&self) -> Vec<f32> {
        let mut out = Vec::new();
        self.visit_constants(&mut out);
        out
    }

    fn visit_constants(&self, out: &mut Vec<f32>) {
        match self {
            Expr::Input(_) => {}
            Expr::Const(c) => out.push(*c),
            Expr::Call(_, x) => x.visit_constants(out),
            Expr::Call2(_, x, y) => {
                x.visit_constants(out);
                y.visit_constants(out);
            }
        }
    }

    /// Shader source of the expression, valid WGSL and GLSL alike: a `vec4` of four elements.
    pub fn shader(&self) -> String {
        self.shader_from(&mut 0)
    }

    /// Shader source whose constants are parameters `next_param`, `next_param + 1`, ... (for
    /// two expressions sharing one pass).
    pub fn shader_from(&self, next_param: &mut usize) -> String {
        self.emit(next_param)
    }

    fn emit(&self, next_param: &mut usize) -> String {
        match self {
            Expr::Input(i) => format!("{}_texel(texel.x, texel.y)", INPUT_NAMES[*i]),
            Expr::Const(_) => {
                *next_param += 1;
                format!("p4({})", *next_param - 1)
            }
            Expr::Call(f, x) => format!("f_{}({})", f.name(), x.emit(next_param)),
            Expr::Call2(f, x, y) => {
                let x = x.emit(next_param);
                format!("f_{}({x}, {})", f.name(), y.emit(next_param))
            }
        }
    }

    /// The expression as JavaScript over variables `a`..`f`, with `Math.*` in float64: the
    /// page's reference for the GPU result.
    pub fn javascript(&self) -> String {
        match self {
            Expr::Input(i) => INPUT_NAMES[*i].to_string(),
            Expr::Const(c) => format!("({})", js_number(*c)),
            Expr::Call(f, x) => {
                let x = x.javascript();
                match unary_token(*f) {
                    "neg" => format!("(-{x})"),
                    "inv" => format!("(1 / {x})"),
                    "invsqrt" => format!("(1 / Math.sqrt({x}))"),
                    "invcbrt" => format!("(1 / Math.cbrt({x}))"),
                    name => format!("Math.{name}({x})"),
                }
            }
            Expr::Call2(f, x, y) => {
                let (x, y) = (x.javascript(), y.javascript());
                match binary_token(*f) {
                    op @ ("+" | "-" | "*" | "/") => format!("({x} {op} {y})"),
                    name => format!("Math.{name}({x}, {y})"),
                }
            }
        }
    }

    /// The same reference as a postfix program, for a float64 interpreter that needs no `eval`
    /// (the page's `www/reference/expression.js`, under a Content-Security-Policy that forbids
    /// it): input names `a`..`f`, numbers (`NaN`, `Infinity`, `-Infinity` included), and one
    /// token per operation: `+ - * /`, `neg`, `inv`, `invsqrt`, `invcbrt`, or a `Math` function
    /// (`pow`, `atan2`, `max` and `min` take two operands).
    pub fn program(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.push_program(&mut out);
        out
    }

    fn push_program(&self, out: &mut Vec<String>) {
        match self {
            Expr::Input(i) => out.push(INPUT_NAMES[*i].to_string()),
            Expr::Const(c) => out.push(js_number(*c)),
            Expr::Call(f, x) => {
                x.push_program(out);
                out.push(unary_token(*f).into());
            }
            Expr::Call2(f, x, y) => {
                x.push_program(out);
                y.push_program(out);
                out.push(binary_token(*f).into());
            }
        }
    }

    /// Checks the limits of one shader pass: inputs and constants.
    pub fn check(&self) -> Result<()> {
        if self.input_count() > MAX_INPUTS {
            return Err(Error::Expr(format!(
                "an expression may read at most {MAX_INPUTS} matrices (a to f)"
            )));
        }
        if self.constants().len() > MAX_PARAMS {
            return Err(Error::Expr(format!(
                "an expression may hold at most {MAX_PARAMS} numbers"
            )));
        }
        Ok(())
    }

    /// The expression in float64 for one element, `inputs[i]` being the element of input i.
    pub fn eval(&self, inputs: &[f64]) -> f64 {
        match self {
            Expr::Input(i) => inputs[*i],
            Expr::Const(c) => f64::from(*c),
            Expr::Call(f, x) => f.eval(x.eval(inputs)),
            Expr::Call2(f, x, y) => f.eval(x.eval(inputs), y.eval(inputs)),
        }
    }

    /// Parses `a * cos(b) / sqrt(c)`: inputs `a`..`f` (or `A`..`F`), numbers, `+ - * / ^`,
    /// parentheses and the functions of [`Func`] and [`Func2`] by name.
    pub fn parse(text: &str) -> Result<Expr> {
        if text.len() > 2000 {
            return Err(Error::Expr(format!(
                "an expression may be 2000 characters long, this one is {}",
                text.len()
            )));
        }
        let mut p = Parser {
            tokens: tokenize(text)?,
            pos: 0,
            depth: 0,
        };
        let e = p.sum()?;
        match p.tokens.get(p.pos) {
            None => {
                e.check()?;
                Ok(e)
            }
            Some(t) => Err(Error::Expr(format!("unexpected {t} in \"{text}\""))),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Input(i) => write!(f, "{}", INPUT_NAMES[*i]),
            Expr::Const(c) => write!(f, "{c}"),
            Expr::Call(func, x) => write!(f, "{}({x})", func.name()),
            Expr::Call2(func, x, y) => write!(f, "{}({x}, {y})", func.name()),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Num(f32),
    Ident(String),
    Sym(char),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Num(v) => write!(f, "number {v}"),
            Token::Ident(s) => write!(f, "\"{s}\""),
            Token::Sym(c) => write!(f, "'{c}'"),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || chars[i] == '.'
                    || chars[i] == 'e'
                    || chars[i] == 'E'
                    || ((chars[i] == '-' || chars[i] == '+') && matches!(chars[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            let v = super::decimal::parse_f32(&s)
                .ok_or_else(|| Error::Expr(format!("\"{s}\" is not a number")))?;
            out.push(Token::Num(v));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
        } else if "+-*/^(),".contains(c) {
            out.push(Token::Sym(c));
            i += 1;
        } else {
            return Err(Error::Expr(format!(
                "unexpected character '{c}' in \"{text}\""
            )));
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Nesting (parentheses, calls, unary minus): parsing recurses once per level, so it is
    /// bounded to keep the stack small.
    depth: usize,
}

/// Deepest nesting an expression may have.
const MAX_DEPTH: usize = 64;

impl Parser {
    fn peek_sym(&self, c: char) -> bool {
        self.tokens.get(self.pos) == Some(&Token::Sym(c))
    }

    fn expect(&mut self, c: char) -> Result<()> {
        if self.peek_sym(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Error::Expr(match self.tokens.get(self.pos) {
                Some(t) => format!("expected '{c}' but found {t}"),
                None => format!("expected '{c}' but the expression ended"),
            }))
        }
    }

    /// Runs `parse` one nesting level deeper.
    fn nested(&mut self, parse: fn(&mut Self) -> Result<Expr>) -> Result<Expr> {
        if self.depth >= MAX_DEPTH {
            return Err(Error::Expr(format!(
                "an expression may nest at most {MAX_DEPTH} levels deep"
            )));
        }
        self.depth += 1;
        let e = parse(self);
        self.depth -= 1;
        e
    }

    /// sum := product (('+' | '-') product)*
    fn sum(&mut self) -> Result<Expr> {
        let mut e = self.product()?;
        loop {
            let f = if self.peek_sym('+') {
                Func2::Add
            } else if self.peek_sym('-') {
                Func2::Sub
            } else {
                return Ok(e);
            };
            self.pos += 1;
            e = Expr::call2(f, e, self.product()?);
        }
    }

    /// product := unary (('*' | '/') unary)*
    fn product(&mut self) -> Result<Expr> {
        let mut e = self.unary()?;
        loop {
            let f = if self.peek_sym('*') {
                Func2::Mul
            } else if self.peek_sym('/') {
                Func2::Div
            } else {
                return Ok(e);
            };
            self.pos += 1;
            e = Expr::call2(f, e, self.unary()?);
        }
    }

    /// unary := '-' unary | power
    fn unary(&mut self) -> Result<Expr> {
        if self.peek_sym('-') {
            self.pos += 1;
            return Ok(Expr::call(Func::Neg, self.nested(Self::unary)?));
        }
        self.power()
    }

    /// power := atom ('^' unary)?   (right-associative)
    fn power(&mut self) -> Result<Expr> {
        let base = self.atom()?;
        if self.peek_sym('^') {
            self.pos += 1;
            return Ok(Expr::call2(Func2::Pow, base, self.nested(Self::unary)?));
        }
        Ok(base)
    }

    /// atom := number | input | name '(' sum (',' sum)? ')' | '(' sum ')'
    fn atom(&mut self) -> Result<Expr> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        match token {
            Some(Token::Num(v)) => Ok(Expr::Const(v)),
            Some(Token::Sym('(')) => {
                let e = self.nested(Self::sum)?;
                self.expect(')')?;
                Ok(e)
            }
            Some(Token::Ident(name)) => {
                let lower = name.to_ascii_lowercase();
                if let Some(i) = INPUT_NAMES.iter().position(|n| *n == lower) {
                    return Ok(Expr::Input(i));
                }
                self.expect('(')?;
                let x = self.nested(Self::sum)?;
                if let Some(f) = Func::ALL.iter().find(|f| f.name() == lower) {
                    self.expect(')')?;
                    return Ok(Expr::call(*f, x));
                }
                if let Some(f) = Func2::ALL.iter().find(|f| f.name() == lower) {
                    self.expect(',')?;
                    let y = self.nested(Self::sum)?;
                    self.expect(')')?;
                    return Ok(Expr::call2(*f, x, y));
                }
                Err(Error::Expr(format!(
                    "unknown function \"{name}\"; known: {}",
                    function_names().join(", ")
                )))
            }
            Some(t) => Err(Error::Expr(format!("unexpected {t}"))),
            None => Err(Error::Expr("the expression ended too early".into())),
        }
    }
}

/// A float32 constant as a JavaScript number.
fn js_number(c: f32) -> String {
    if c.is_nan() {
        "NaN".into()
    } else if c.is_infinite() {
        format!("{}Infinity", if c < 0.0 { "-" } else { "" })
    } else {
        format!("{c:?}")
    }
}

/// A function of one argument in the JavaScript reference: `neg`, `inv`, `invsqrt`, `invcbrt`,
/// else the name of its `Math` function (the GPU's own `_builtin` variants have the same).
fn unary_token(f: Func) -> &'static str {
    match f {
        Func::Ln | Func::LnBuiltin => "log",
        other => {
            let name = other.name();
            name.strip_suffix("_builtin").unwrap_or(name)
        }
    }
}

/// A function of two arguments in the JavaScript reference: an operator or a `Math` function.
fn binary_token(f: Func2) -> &'static str {
    match f {
        Func2::Add => "+",
        Func2::Sub => "-",
        Func2::Mul => "*",
        Func2::Div => "/",
        Func2::Pow | Func2::PowBuiltin => "pow",
        Func2::Atan2 => "atan2",
        Func2::Max => "max",
        Func2::Min => "min",
    }
}

/// Names of every function an expression may call.
pub fn function_names() -> Vec<&'static str> {
    Func::ALL
        .iter()
        .map(|f| f.name())
        .chain(Func2::ALL.iter().map(|f| f.name()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_seed_example_with_precedence() {
        let e = Expr::parse("A*cos(B)/sqrt(C)").unwrap();
        assert_eq!(e.to_string(), "div(mul(a, cos(b)), sqrt(c))");
        assert_eq!(e.input_count(), 3);
        let v = e.eval(&[2.0, 0.5, 4.0]);
        assert!((v - 2.0 * 0.5f64.cos() / 2.0).abs() < 1e-15);
        assert_eq!(
            Expr::parse("-a^2 + 3*b - c").unwrap().to_string(),
            "sub(add(neg(pow(a, 2)), mul(3, b)), c)"
        );
        assert_eq!(
            Expr::parse("atan2(a, 1e-3)").unwrap().constants(),
            vec![1e-3]
        );
        assert_eq!(Expr::parse("2^3^2").unwrap().eval(&[]), 512.0);
    }

    #[test]
    fn shader_text_uses_helpers_and_parameters() {
        let e = Expr::parse("max(a, 0.5) * exp(b) + 2").unwrap();
        assert_eq!(
            e.shader(),
            "f_add(f_mul(f_max(a_texel(texel.x, texel.y), p4(0)), f_exp(b_texel(texel.x, texel.y))), p4(1))"
        );
        assert_eq!(e.constants(), vec![0.5, 2.0]);
    }

    #[test]
    fn javascript_reference_uses_math() {
        let e =
            Expr::parse("A*cos(B)/sqrt(C) + invsqrt(a) - ln(b)^2.5 + max(a, -1) + sinh_builtin(c)")
                .unwrap();
        assert_eq!(
            e.javascript(),
            "((((((a * Math.cos(b)) / Math.sqrt(c)) + (1 / Math.sqrt(a))) - Math.pow(Math.log(b), (2.5))) + Math.max(a, (-(1.0)))) + Math.sinh(c))"
        );
    }

    #[test]
    fn postfix_program_lists_operands_before_operations() {
        let e = Expr::parse("max(a, -1) * invsqrt(b) ^ 2.5 + ln(c)").unwrap();
        assert_eq!(
            e.program(),
            ["a", "1.0", "neg", "max", "b", "invsqrt", "2.5", "pow", "*", "c", "log", "+"]
        );
    }

    #[test]
    fn bad_expressions_are_clear_errors() {
        let msg = |t: &str| Expr::parse(t).unwrap_err().to_string();
        assert!(msg("a +").contains("ended too early"), "{}", msg("a +"));
        assert!(msg("foo(a)").contains("unknown function \"foo\""));
        assert!(msg("cos(a").contains("expected ')'"));
        assert!(msg("a $ b").contains("unexpected character '$'"));
        assert!(msg("g").contains("expected '('"));
        assert!(msg("a b").contains("unexpected \"b\""));
        assert!(msg("a+1+2+3+4+5+6+7+8+9").contains("at most 8 numbers"));
        assert!(msg("atan2(a)").contains("expected ','"));
        assert!(msg(&"(".repeat(5000)).contains("2000 characters"));
        assert!(
            msg(&format!("{}a{}", "(".repeat(65), ")".repeat(65))).contains("at most 64 levels")
        );
        assert!(msg(&format!("{}a", "-".repeat(100))).contains("at most 64 levels"));
        assert!(msg(&"a^".repeat(100)).contains("at most 64 levels"));
        let deep = format!("{}a{}", "(".repeat(64), ")".repeat(64));
        assert_eq!(Expr::parse(&deep).unwrap(), Expr::Input(0));
    }

    #[test]
    fn every_function_round_trips_through_the_parser() {
        for f in Func::ALL {
            let e = Expr::parse(&format!("{}(a)", f.name())).unwrap();
            assert_eq!(e, Expr::call(f, Expr::Input(0)));
        }
        for f in Func2::ALL {
            let e = Expr::parse(&format!("{}(a, b)", f.name())).unwrap();
            assert_eq!(e, Expr::call2(f, Expr::Input(0), Expr::Input(1)));
        }
    }
}
