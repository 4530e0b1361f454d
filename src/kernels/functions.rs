//! The functions an element-wise expression may call (the thesis's VML set and two-argument
//! operators): their names, their shader helpers (`shaders/elementwise/functions.*`) and their
//! float64 reference.

/// Functions of one argument (the thesis, Table 2, and a few helpers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func {
    /// -x
    Neg,
    /// |x|
    Abs,
    /// 1 / x
    Inv,
    /// Square root.
    Sqrt,
    /// 1 / sqrt(x)
    InvSqrt,
    /// Cube root (also of negative numbers).
    Cbrt,
    /// 1 / cbrt(x)
    InvCbrt,
    /// e^x
    Exp,
    /// Natural logarithm.
    Ln,
    /// Base-10 logarithm.
    Log10,
    /// Cosine (radians), accurate for |x| < 1e5.
    Cos,
    /// Sine (radians), accurate for |x| < 1e5.
    Sin,
    /// Tangent (radians), accurate for |x| < 1e5.
    Tan,
    /// Arc cosine, accurate near 1.
    Acos,
    /// Arc sine.
    Asin,
    /// Arc tangent.
    Atan,
    /// Hyperbolic cosine.
    Cosh,
    /// Hyperbolic sine, accurate near 0.
    Sinh,
    /// Hyperbolic tangent, accurate near 0 and finite for large |x|.
    Tanh,
    /// Inverse hyperbolic cosine.
    Acosh,
    /// Inverse hyperbolic sine, accurate near 0 and for negative x.
    Asinh,
    /// Inverse hyperbolic tangent, accurate near 0.
    Atanh,
    /// The GPU's built-in log, kept to show its accuracy and special values beside [`Func::Ln`].
    LnBuiltin,
    /// The GPU's built-in cos, kept to show its accuracy beside [`Func::Cos`].
    CosBuiltin,
    /// The GPU's built-in sin, kept to show its accuracy beside [`Func::Sin`].
    SinBuiltin,
    /// The GPU's built-in tan, kept to show its accuracy beside [`Func::Tan`].
    TanBuiltin,
    /// The GPU's built-in acos, kept to show its accuracy beside [`Func::Acos`].
    AcosBuiltin,
    /// The GPU's built-in acosh, kept to show its accuracy beside [`Func::Acosh`].
    AcoshBuiltin,
    /// The GPU's built-in sinh, kept to show its accuracy beside [`Func::Sinh`].
    SinhBuiltin,
    /// The GPU's built-in tanh, kept to show its accuracy beside [`Func::Tanh`].
    TanhBuiltin,
    /// The GPU's built-in asinh, kept to show its accuracy beside [`Func::Asinh`].
    AsinhBuiltin,
    /// The GPU's built-in atanh, kept to show its accuracy beside [`Func::Atanh`].
    AtanhBuiltin,
}

/// Functions of two arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func2 {
    /// x + y
    Add,
    /// x - y
    Sub,
    /// x * y (element-wise)
    Mul,
    /// x / y (element-wise)
    Div,
    /// x^y with IEEE 754 / JavaScript semantics: negative x with whole y, pow(x, 0) = 1.
    Pow,
    /// The GPU's built-in pow, undefined for x < 0; kept to show the difference.
    PowBuiltin,
    /// atan2(y, x), the angle of the point (x, y).
    Atan2,
    /// The larger of x and y; NaN if either is NaN (as JavaScript's Math.max).
    Max,
    /// The smaller of x and y; NaN if either is NaN (as JavaScript's Math.min).
    Min,
}

impl Func {
    /// Every function, in the order of the accuracy table.
    pub const ALL: [Func; 32] = [
        Func::Neg,
        Func::Abs,
        Func::Inv,
        Func::Sqrt,
        Func::InvSqrt,
        Func::Cbrt,
        Func::InvCbrt,
        Func::Exp,
        Func::Ln,
        Func::Log10,
        Func::Cos,
        Func::Sin,
        Func::Tan,
        Func::Acos,
        Func::Asin,
        Func::Atan,
        Func::Cosh,
        Func::Sinh,
        Func::Tanh,
        Func::Acosh,
        Func::Asinh,
        Func::Atanh,
        Func::LnBuiltin,
        Func::CosBuiltin,
        Func::SinBuiltin,
        Func::TanBuiltin,
        Func::AcosBuiltin,
        Func::AcoshBuiltin,
        Func::SinhBuiltin,
        Func::TanhBuiltin,
        Func::AsinhBuiltin,
        Func::AtanhBuiltin,
    ];

    /// The name in expressions and in the JS API.
    pub fn name(self) -> &'static str {
        match self {
            Func::Neg => "neg",
            Func::Abs => "abs",
            Func::Inv => "inv",
            Func::Sqrt => "sqrt",
            Func::InvSqrt => "invsqrt",
            Func::Cbrt => "cbrt",
            Func::InvCbrt => "invcbrt",
            Func::Exp => "exp",
            Func::Ln => "ln",
            Func::Log10 => "log10",
            Func::Cos => "cos",
            Func::Sin => "sin",
            Func::Tan => "tan",
            Func::Acos => "acos",
            Func::Asin => "asin",
            Func::Atan => "atan",
            Func::Cosh => "cosh",
            Func::Sinh => "sinh",
            Func::Tanh => "tanh",
            Func::Acosh => "acosh",
            Func::Asinh => "asinh",
            Func::Atanh => "atanh",
            Func::LnBuiltin => "ln_builtin",
            Func::CosBuiltin => "cos_builtin",
            Func::SinBuiltin => "sin_builtin",
            Func::TanBuiltin => "tan_builtin",
            Func::AcosBuiltin => "acos_builtin",
            Func::AcoshBuiltin => "acosh_builtin",
            Func::SinhBuiltin => "sinh_builtin",
            Func::TanhBuiltin => "tanh_builtin",
            Func::AsinhBuiltin => "asinh_builtin",
            Func::AtanhBuiltin => "atanh_builtin",
        }
    }

    /// The function in float64.
    pub fn eval(self, x: f64) -> f64 {
        match self {
            Func::Neg => -x,
            Func::Abs => x.abs(),
            Func::Inv => 1.0 / x,
            Func::Sqrt => x.sqrt(),
            Func::InvSqrt => 1.0 / x.sqrt(),
            Func::Cbrt => x.cbrt(),
            Func::InvCbrt => 1.0 / x.cbrt(),
            Func::Exp => x.exp(),
            Func::Ln | Func::LnBuiltin => x.ln(),
            Func::Log10 => x.log10(),
            Func::Cos | Func::CosBuiltin => x.cos(),
            Func::Sin | Func::SinBuiltin => x.sin(),
            Func::Tan | Func::TanBuiltin => x.tan(),
            Func::Acos | Func::AcosBuiltin => x.acos(),
            Func::Asin => x.asin(),
            Func::Atan => x.atan(),
            Func::Cosh => x.cosh(),
            Func::Sinh | Func::SinhBuiltin => x.sinh(),
            Func::Tanh | Func::TanhBuiltin => x.tanh(),
            Func::Acosh | Func::AcoshBuiltin => x.acosh(),
            Func::Asinh | Func::AsinhBuiltin => x.asinh(),
            Func::Atanh | Func::AtanhBuiltin => x.atanh(),
        }
    }
}

impl Func2 {
    /// Every function of two arguments that has a name in expressions.
    pub const ALL: [Func2; 9] = [
        Func2::Add,
        Func2::Sub,
        Func2::Mul,
        Func2::Div,
        Func2::Pow,
        Func2::PowBuiltin,
        Func2::Atan2,
        Func2::Max,
        Func2::Min,
    ];

    /// The name in expressions and in the JS API.
    pub fn name(self) -> &'static str {
        match self {
            Func2::Add => "add",
            Func2::Sub => "sub",
            Func2::Mul => "mul",
            Func2::Div => "div",
            Func2::Pow => "pow",
            Func2::PowBuiltin => "pow_builtin",
            Func2::Atan2 => "atan2",
            Func2::Max => "max",
            Func2::Min => "min",
        }
    }

    /// The function in float64.
    pub fn eval(self, x: f64, y: f64) -> f64 {
        match self {
            Func2::Add => x + y,
            Func2::Sub => x - y,
            Func2::Mul => x * y,
            Func2::Div => x / y,
            Func2::Pow | Func2::PowBuiltin => x.powf(y),
            Func2::Atan2 => x.atan2(y),
            // NaN wins, as in JavaScript's Math.max (IEEE maxNum would drop it).
            _ if x.is_nan() || y.is_nan() => f64::NAN,
            Func2::Max => x.max(y),
            Func2::Min => x.min(y),
        }
    }
}
