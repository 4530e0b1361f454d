// Element-wise kernel: out = EXPR(a, b, ...) for every element, in ONE pass.
// src/expr.rs generates EXPR from the helpers below (the same text for WGSL and GLSL); each
// helper works on four elements at once (one texel). Constants arrive as parameters: p4(i).

fn p4(i: i32) -> vec4<f32> { return vec4<f32>(param(i)); }
fn nan4() -> vec4<f32> { return vec4<f32>(bitcast<f32>(0x7fc00000u)); }

fn f_add(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x + y; }
fn f_sub(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x - y; }
fn f_mul(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x * y; }
fn f_div(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x / y; }
fn f_max(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return max(x, y); }
fn f_min(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return min(x, y); }
fn f_neg(x: vec4<f32>) -> vec4<f32> { return -x; }
fn f_abs(x: vec4<f32>) -> vec4<f32> { return abs(x); }
fn f_inv(x: vec4<f32>) -> vec4<f32> { return 1.0 / x; }
fn f_sqrt(x: vec4<f32>) -> vec4<f32> { return sqrt(x); }
// 1 / sqrt(x) rather than inverseSqrt: IEEE results at 0 (inf) and an exactly rounded sqrt.
fn f_invsqrt(x: vec4<f32>) -> vec4<f32> { return 1.0 / sqrt(x); }
// pow(|x|, 1/3) with the sign of x, then one Newton step to recover the last bits.
fn f_cbrt(x: vec4<f32>) -> vec4<f32> {
    let y = sign(x) * pow(abs(x), vec4<f32>(1.0 / 3.0));
    let refined = y - (y * y * y - x) / (3.0 * y * y);
    return select(y, refined, abs(y) > vec4<f32>(1e-12) & abs(y) < vec4<f32>(1e12));
}
fn f_invcbrt(x: vec4<f32>) -> vec4<f32> { return 1.0 / f_cbrt(x); }
fn f_exp(x: vec4<f32>) -> vec4<f32> { return exp(x); }
fn f_ln(x: vec4<f32>) -> vec4<f32> { return log(x); }
fn f_log10(x: vec4<f32>) -> vec4<f32> { return log2(x) * 0.30102999566398120; }
fn f_cos(x: vec4<f32>) -> vec4<f32> { return cos(x); }
fn f_sin(x: vec4<f32>) -> vec4<f32> { return sin(x); }
fn f_tan(x: vec4<f32>) -> vec4<f32> { return tan(x); }
fn f_acos(x: vec4<f32>) -> vec4<f32> { return acos(x); }
fn f_asin(x: vec4<f32>) -> vec4<f32> { return asin(x); }
fn f_atan(x: vec4<f32>) -> vec4<f32> { return atan(x); }
fn f_atan2(y: vec4<f32>, x: vec4<f32>) -> vec4<f32> { return atan2(y, x); }
fn f_cosh(x: vec4<f32>) -> vec4<f32> { return cosh(x); }
fn f_acosh(x: vec4<f32>) -> vec4<f32> { return acosh(x); }
fn f_sinh_builtin(x: vec4<f32>) -> vec4<f32> { return sinh(x); }
fn f_tanh_builtin(x: vec4<f32>) -> vec4<f32> { return tanh(x); }
fn f_asinh_builtin(x: vec4<f32>) -> vec4<f32> { return asinh(x); }
fn f_atanh_builtin(x: vec4<f32>) -> vec4<f32> { return atanh(x); }

// log(1 + u) without losing u when it is tiny (Goldberg's trick: the rounding of 1 + u cancels).
fn log1p4(u: vec4<f32>) -> vec4<f32> {
    let w = 1.0 + u;
    return select(log(w) * u / (w - 1.0), u, w == vec4<f32>(1.0));
}
// sinh: a Taylor series near 0, where (e^x - e^-x) / 2 cancels.
fn f_sinh(x: vec4<f32>) -> vec4<f32> {
    let x2 = x * x;
    let series = x * (1.0 + x2 * (1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (1.0 / 5040.0))));
    return select(sinh(x), series, abs(x) < vec4<f32>(0.5));
}
// tanh: sinh / cosh near 0; 1 - 2 / (e^2|x| + 1) elsewhere, which tends to 1 instead of inf/inf.
fn f_tanh(x: vec4<f32>) -> vec4<f32> {
    let big = sign(x) * (1.0 - 2.0 / (exp(2.0 * abs(x)) + 1.0));
    return select(big, f_sinh(x) / cosh(x), abs(x) < vec4<f32>(0.5));
}
// asinh: log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) with the sign of x; log(2|x|) where x^2 overflows.
fn f_asinh(x: vec4<f32>) -> vec4<f32> {
    let a = abs(x);
    let near = log1p4(a + a * a / (1.0 + sqrt(1.0 + a * a)));
    let far = log(a) + 0.69314718055994531;
    return sign(x) * select(near, far, a > vec4<f32>(1e18));
}
// atanh: log1p(2|x| / (1 - |x|)) / 2 with the sign of x.
fn f_atanh(x: vec4<f32>) -> vec4<f32> {
    let a = abs(x);
    return sign(x) * 0.5 * log1p4(2.0 * a / (1.0 - a));
}
// x^y as IEEE 754 (and JavaScript) define it; the GPU's pow is undefined for x < 0 and 0^0.
fn f_pow(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> {
    let m = pow(abs(x), y);
    let whole = floor(y) == y;
    let odd = whole & (floor(y * 0.5) * 2.0 != y);
    var r = select(m, -m, (x < vec4<f32>(0.0)) & odd);
    r = select(r, nan4(), (x < vec4<f32>(0.0)) & !whole);
    return select(r, vec4<f32>(1.0), y == vec4<f32>(0.0));
}
fn f_pow_builtin(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return pow(x, y); }

fn kernel(texel: vec2<i32>) -> vec4<f32> {
    return mask_padding(texel.y, {expr});
}
