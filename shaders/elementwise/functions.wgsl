// The functions of element-wise expressions (src/expr.rs emits calls to them, the same text for
// WGSL and GLSL); each works on four elements at once (one texel). Constants arrive as
// parameters: p4(i).

fn p4(i: i32) -> vec4<f32> { return vec4<f32>(param(i)); }
// Special values. GPUs need not follow IEEE 754 in their built-in functions (several return
// numbers for NaN, or log(0) = -88), so the helpers below pass NaN through and handle the
// edges themselves; the `_builtin` variants keep the GPU's own behaviour for comparison.
fn inf4() -> vec4<f32> { return vec4<f32>(bitcast<f32>(0x7f800000u + u32(min(out_rows(), 0)))); }

// A quiet NaN. Built from a uniform so that it is not a constant expression, which WGSL
// forbids from being NaN.
fn nan4() -> vec4<f32> { return vec4<f32>(bitcast<f32>(0x7fc00000u + u32(min(out_rows(), 0)))); }

fn f_add(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x + y; }
fn f_sub(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x - y; }
fn f_mul(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x * y; }
fn f_div(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return x / y; }
// max and min pass NaN on, as JavaScript's Math.max does (GPU max drops it).
fn f_max(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return keep_nan(x, keep_nan(y, max(x, y))); }
fn f_min(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return keep_nan(x, keep_nan(y, min(x, y))); }
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
    let r = select(y, refined, (abs(y) > vec4<f32>(1e-12)) & (abs(y) < vec4<f32>(1e12)));
    return keep_nan(x, select(r, x, x == vec4<f32>(0.0))); // cbrt(-0) = -0
}
fn f_invcbrt(x: vec4<f32>) -> vec4<f32> { return 1.0 / f_cbrt(x); }

// e^(x + lo) 2^s: x = k ln 2 + r with k = round(x / ln 2) and r in [-0.35, 0.35] (ln 2 in two
// parts, exact products; lo, a small correction, joins r), e^r by its Taylor polynomial to r^8
// (what it leaves out is below 2^-31 of it; GPU exp promises only 3 ULP on the small r),
// 2^(k + s) exact in two halves, to reach the largest and smallest results. s = -1 gives
// e^x / 2 without overflowing first. For |x| < 90.
fn exp_parts(x: vec4<f32>, lo: vec4<f32>, s: f32) -> vec4<f32> {
    let k = round(x * 1.4426950408889634);
    let r = ((x - k * 0.693145751953125) - k * 1.42860682030941723e-6) + lo;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0
        + r * (1.0 / 720.0 + r * (1.0 / 5040.0 + r * (1.0 / 40320.0))))))));
    let e = k + s;
    let h = floor(e * 0.5);
    return p * pow2(h) * pow2(e - h);
}
// 2^n for a whole n, made from its bits (exact, where exp2 need not be), clamped to the normal
// range [2^-126, 2^127].
fn pow2(n: vec4<f32>) -> vec4<f32> {
    let e = vec4<u32>(clamp(n, vec4<f32>(-126.0), vec4<f32>(127.0)) + 127.0);
    return bitcast<vec4<f32>>(e << vec4<u32>(23u));
}
fn exp_scaled(x: vec4<f32>, s: f32) -> vec4<f32> { return exp_parts(x, vec4<f32>(0.0), s); }
// e^x: infinite past 88.73; below -87.33, where it leaves the normal range, the built-in decides
// (GPUs may flush subnormal results to zero).
fn f_exp(x: vec4<f32>) -> vec4<f32> {
    let r = exp_scaled(min(x, vec4<f32>(90.0)), 0.0);
    return keep_nan(x, select(r, exp(x), x < vec4<f32>(-87.33)));
}
// ln(1 + u) for |u| < 0.41 from the series 2 atanh(s), s = u / (2 + u): exact near u = 0.
fn ln_near_one(u: vec4<f32>) -> vec4<f32> {
    let s = u / (2.0 + u);
    let z = s * s;
    return 2.0 * s * (1.0 + z * (1.0 / 3.0 + z * (0.2 + z * (1.0 / 7.0 + z * (1.0 / 9.0 + z * (1.0 / 11.0))))));
}
// Positive normal x = m 2^e with m in [0.707, 1.414], read off the bits (WGSL's frexp takes m
// in [0.5, 1)).
struct MantissaExponent {
    m: vec4<f32>,
    e: vec4<f32>,
}
fn mantissa_exponent(x: vec4<f32>) -> MantissaExponent {
    let bits = bitcast<vec4<u32>>(x);
    let e = vec4<f32>(vec4<i32>((bits >> vec4<u32>(23u)) & vec4<u32>(0xffu)) - vec4<i32>(127));
    let m = bitcast<vec4<f32>>((bits & vec4<u32>(0x007fffffu)) | vec4<u32>(0x3f800000u));
    let big = m > vec4<f32>(1.41421356);
    return MantissaExponent(select(m, m * 0.5, big), select(e, e + 1.0, big));
}
// ln x for positive normal x: ln x = e ln 2 + ln m (mantissa_exponent). GPU logs promise only
// 2^-21 absolute near x = 1.
fn ln_reduced(x: vec4<f32>) -> vec4<f32> {
    let f = mantissa_exponent(x);
    return f.e * 0.693145751953125 + (f.e * 1.42860682030941723e-6 + ln_near_one(f.m - 1.0));
}
// ln(1 + u), accurate for tiny u too.
fn log1p4(u: vec4<f32>) -> vec4<f32> {
    return select(ln_reduced(1.0 + u), ln_near_one(u), abs(u) < vec4<f32>(0.41));
}
// log: NaN below 0, -inf at 0, +inf at +inf.
fn f_ln(x: vec4<f32>) -> vec4<f32> {
    var r = select(ln_reduced(x), -inf4(), x == vec4<f32>(0.0));
    r = select(r, inf4(), x == inf4());
    return keep_nan(x, select(r, nan4(), x < vec4<f32>(0.0)));
}
fn f_log10(x: vec4<f32>) -> vec4<f32> { return f_ln(x) * 0.43429448190325183; }
fn f_ln_builtin(x: vec4<f32>) -> vec4<f32> { return log(x); }

// sin, cos and tan reduce x to r in [-pi/4, pi/4] with x = k pi/2 + r, then evaluate float32
// minimax polynomials (Cephes sinf/cosf). The reduction is Payne-Hanek's (reduce_large) for every
// |x| beyond pi/4: Cody-Waite's (pi/2 in three parts) lost 256 to 1536 ULP near multiples of
// pi/2 already below 1e5, and GPU built-ins lose everything beyond. A few ULP everywhere.
struct Reduced {
    r: vec4<f32>,
    q: vec4<i32>,
}
fn reduce_half_pi(x: vec4<f32>) -> Reduced {
    let large = abs(x) > vec4<f32>(0.78539816);
    if (!any(large)) {
        return Reduced(x, vec4<i32>(0));
    }
    let l = reduce_large(x);
    return Reduced(select(x, l.r, large), select(vec4<i32>(0), l.q, large));
}
// 2 / pi in base-4096 digits: 2/pi = sum TWO_OVER_PI[j] 4096^-(j+1) (264 bits).
var<private> TWO_OVER_PI: array<f32, 22> = array<f32, 22>(2607.0, 2435.0, 1764.0, 3652.0, 338.0, 2556.0, 629.0, 2001.0, 3923.0, 1245.0, 3085.0, 2914.0, 2393.0, 2364.0, 1081.0, 65.0, 4069.0, 355.0, 2749.0, 3771.0, 3158.0, 439.0);
// One term of x 2/pi mod 4: p 2^k, p a whole number below 2^24; 0 where k >= 2 (a multiple of 4).
// Exact: for k >= -22 the remainder is a multiple of 2^k below 4, else p 2^k is below 4 already.
fn mod4_term(p: vec4<f32>, k: vec4<i32>) -> vec4<f32> {
    let t = p * pow2(vec4<f32>(max(k, vec4<i32>(-126))));
    return select(t - 4.0 * floor(t * 0.25), vec4<f32>(0.0), k >= vec4<i32>(2));
}
// Payne-Hanek for finite normal x: |x| = M 2^(e-23) with M a 24-bit whole number, split into
// two 12-bit halves so that each half times a digit of 2/pi is exact; the terms that matter mod
// 4 are summed mod 4 as a double-float (about 48 bits), whose nearest whole number is the
// quadrant and whose rest, times pi/2 (also as a double-float product), is r.
fn reduce_large(x: vec4<f32>) -> Reduced {
    let bits = bitcast<vec4<u32>>(abs(x));
    let e = vec4<i32>((bits >> vec4<u32>(23u)) & vec4<u32>(0xffu)) - vec4<i32>(127);
    let m = vec4<f32>((bits & vec4<u32>(0x7fffffu)) | vec4<u32>(0x800000u));
    let mh = floor(m / 4096.0);
    let ml = m - mh * 4096.0;
    var hi = vec4<f32>(0.0);
    var lo = vec4<f32>(0.0);
    // Digits whose terms are all multiples of 4 are skipped; those below 2^-60 are not needed.
    let top = max(max(e.x, e.y), max(e.z, e.w));
    let bottom = min(min(e.x, e.y), min(e.z, e.w));
    for (var j = max(0, (bottom - 37) / 12); j <= min((top + 61) / 12, 21); j++) {
        let d = TWO_OVER_PI[j];
        let k = e - vec4<i32>(23 + 12 * j);
        let a = two_sum(hi, mod4_term(mh * d, k));
        hi = a.hi - 4.0 * floor(a.hi * 0.25);
        lo += a.lo;
        let b = two_sum(hi, mod4_term(ml * d, k - vec4<i32>(12)));
        hi = b.hi - 4.0 * floor(b.hi * 0.25);
        lo += b.lo;
    }
    let n = round(hi);
    let f = hi - n;
    let p = two_prod(f, vec4<f32>(1.57079637050628662));
    let r = p.hi + (p.lo + (f * -4.37113900018624283e-8 + lo * 1.57079637050628662));
    let q = vec4<i32>(n) & vec4<i32>(3);
    let negative = x < vec4<f32>(0.0);
    return Reduced(select(r, -r, negative), select(q, (vec4<i32>(4) - q) & vec4<i32>(3), negative));
}
// The reduced result r, NaN at +-inf, NaN kept.
fn big_arg(x: vec4<f32>, r: vec4<f32>) -> vec4<f32> {
    return keep_nan(x, select(r, nan4(), abs(x) == inf4()));
}
fn sin_poly(r: vec4<f32>) -> vec4<f32> {
    let z = r * r;
    return r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
}
fn cos_poly(r: vec4<f32>) -> vec4<f32> {
    let z = r * r;
    return 1.0 - 0.5 * z + z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
}
fn f_sin(x: vec4<f32>) -> vec4<f32> {
    let t = reduce_half_pi(x);
    let odd = (t.q & vec4<i32>(1)) == vec4<i32>(1);
    let v = select(sin_poly(t.r), cos_poly(t.r), odd);
    let r = select(v, -v, (t.q & vec4<i32>(2)) == vec4<i32>(2));
    return big_arg(x, r);
}
fn f_cos(x: vec4<f32>) -> vec4<f32> {
    let t = reduce_half_pi(x);
    let odd = (t.q & vec4<i32>(1)) == vec4<i32>(1);
    let v = select(cos_poly(t.r), sin_poly(t.r), odd);
    let r = select(v, -v, ((t.q + 1) & vec4<i32>(2)) == vec4<i32>(2));
    return big_arg(x, r);
}
fn f_tan(x: vec4<f32>) -> vec4<f32> {
    let t = reduce_half_pi(x);
    let s = sin_poly(t.r);
    let c = cos_poly(t.r);
    let r = select(s / c, -c / s, (t.q & vec4<i32>(1)) == vec4<i32>(1));
    return big_arg(x, r);
}
fn f_sin_builtin(x: vec4<f32>) -> vec4<f32> { return sin(x); }
fn f_cos_builtin(x: vec4<f32>) -> vec4<f32> { return cos(x); }
fn f_tan_builtin(x: vec4<f32>) -> vec4<f32> { return tan(x); }
// acos as 2 atan(sqrt((1 - x) / (1 + x))): relative accuracy near x = 1, where acos -> 0.
fn f_acos(x: vec4<f32>) -> vec4<f32> { return keep_nan(x, 2.0 * atan(sqrt((1.0 - x) / (1.0 + x)))); }
fn f_acos_builtin(x: vec4<f32>) -> vec4<f32> { return acos(x); }
fn f_asin(x: vec4<f32>) -> vec4<f32> { return keep_nan(x, asin(x)); }
fn f_atan(x: vec4<f32>) -> vec4<f32> { return keep_nan(x, atan(x)); }
fn f_atan2(y: vec4<f32>, x: vec4<f32>) -> vec4<f32> { return keep_nan(x, keep_nan(y, atan2(y, x))); }
// cosh: (E + 1 / E) / 2 with E = e^|x| up to 9 (no cancellation), e^|x| / 2 beyond (1 / E is
// below its last bit), which stays finite up to 89.4 where e^|x| alone overflows at 88.7.
fn f_cosh(x: vec4<f32>) -> vec4<f32> {
    let a = min(abs(x), vec4<f32>(90.0));
    let e = exp_scaled(a, 0.0);
    return keep_nan(x, select(0.5 * (e + 1.0 / e), exp_scaled(a, -1.0), a > vec4<f32>(9.0)));
}
// acosh: log1p(t + sqrt(2t + t^2)) with t = x - 1, accurate near 1; ln(2x) where t^2 overflows.
fn f_acosh(x: vec4<f32>) -> vec4<f32> {
    let t = x - 1.0;
    let near = log1p4(t + sqrt(2.0 * t + t * t));
    let r = select(near, f_ln(x) + 0.69314718055994531, x > vec4<f32>(1e18));
    return keep_nan(x, select(r, nan4(), x < vec4<f32>(1.0)));
}
fn f_acosh_builtin(x: vec4<f32>) -> vec4<f32> { return acosh(x); }
fn f_sinh_builtin(x: vec4<f32>) -> vec4<f32> { return sinh(x); }
fn f_tanh_builtin(x: vec4<f32>) -> vec4<f32> { return tanh(x); }
fn f_asinh_builtin(x: vec4<f32>) -> vec4<f32> { return asinh(x); }
fn f_atanh_builtin(x: vec4<f32>) -> vec4<f32> { return atanh(x); }

// sinh: its Taylor series below |x| = 1 (to x^13: what it leaves out is below 2^-33 there),
// where (e^x - e^-x) / 2 cancels; (E - 1 / E) / 2 with E = e^|x| up to 9; e^|x| / 2 beyond, as
// cosh. The GPU's sinh lost up to 58 ULP at large |x|.
fn f_sinh(x: vec4<f32>) -> vec4<f32> {
    let a = min(abs(x), vec4<f32>(90.0));
    let x2 = x * x;
    let series = x * (1.0 + x2 * (1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (1.0 / 5040.0
        + x2 * (1.0 / 362880.0 + x2 * (1.0 / 39916800.0 + x2 * (1.0 / 6227020800.0)))))));
    let e = exp_scaled(a, 0.0);
    let r = sign(x) * select(0.5 * (e - 1.0 / e), exp_scaled(a, -1.0), a > vec4<f32>(9.0));
    return keep_nan(x, select(r, series, a < vec4<f32>(1.0)));
}
// tanh below |x| = 0.5: sinh / cosh = x (1 + a) / (1 + b) with the series a = sinh x / x - 1 and
// b = cosh x - 1, written x + x d / (1 + b) with d = a - b = -sum 2n x^2n / (2n + 1)!: the
// rounding errors fall on the small correction, not on x (sinh / cosh rounded lost 3 ULP).
// Beyond: 1 - 2 / (e^2|x| + 1), which tends to 1 instead of inf / inf.
fn f_tanh(x: vec4<f32>) -> vec4<f32> {
    let x2 = x * x;
    let d = -x2 * (1.0 / 3.0 + x2 * (1.0 / 30.0 + x2 * (1.0 / 840.0 + x2 * (1.0 / 45360.0
        + x2 * (1.0 / 3991680.0 + x2 * (1.0 / 518918400.0))))));
    let b = x2 * (0.5 + x2 * (1.0 / 24.0 + x2 * (1.0 / 720.0 + x2 * (1.0 / 40320.0
        + x2 * (1.0 / 3628800.0 + x2 * (1.0 / 479001600.0))))));
    let small = x + x * d / (1.0 + b);
    let big = sign(x) * (1.0 - 2.0 / (exp_scaled(min(2.0 * abs(x), vec4<f32>(88.0)), 0.0) + 1.0));
    return keep_nan(x, select(big, small, abs(x) < vec4<f32>(0.5)));
}
// asinh: log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) with the sign of x; log(2|x|) where x^2 overflows.
fn f_asinh(x: vec4<f32>) -> vec4<f32> {
    let a = abs(x);
    let near = log1p4(a + a * a / (1.0 + sqrt(1.0 + a * a)));
    let far = f_ln(a) + 0.69314718055994531;
    return keep_nan(x, sign(x) * select(near, far, a > vec4<f32>(1e18)));
}
// atanh: log1p(2|x| / (1 - |x|)) / 2 with the sign of x; +-inf at +-1, NaN beyond.
fn f_atanh(x: vec4<f32>) -> vec4<f32> {
    let a = abs(x);
    var r = select(0.5 * log1p4(2.0 * a / (1.0 - a)), inf4(), a == vec4<f32>(1.0));
    r = select(r, nan4(), a > vec4<f32>(1.0));
    return keep_nan(x, sign(x) * r);
}
// Double-float arithmetic (a value as hi + lo, about 48 bits) from exact float32 steps.
// hi12(a): a's top 12 significant bits, by masking (no fma needed, nothing to contract): the
// product of two such halves has at most 24 bits, so it is exact.
fn hi12(a: vec4<f32>) -> vec4<f32> { return bitcast<vec4<f32>>(bitcast<vec4<u32>>(a) & vec4<u32>(0xfffff000u)); }
struct Dd {
    hi: vec4<f32>,
    lo: vec4<f32>,
}
// a * b = hi + lo exactly (Dekker), for products far from overflow.
fn two_prod(a: vec4<f32>, b: vec4<f32>) -> Dd {
    let p = a * b;
    let ah = hi12(a);
    let al = a - ah;
    let bh = hi12(b);
    let bl = b - bh;
    return Dd(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl);
}
// a + b = hi + lo exactly (Knuth).
fn two_sum(a: vec4<f32>, b: vec4<f32>) -> Dd {
    let s = a + b;
    let bb = s - a;
    return Dd(s, (a - (s - bb)) + (b - bb));
}
// ln x for positive normal x as hi + lo: x = m 2^e, m in [0.707, 1.414]; ln m = 2 atanh(s),
// s = (m - 1) / (m + 1) in [-0.172, 0.172] carried as s_hi + s_lo (the division's remainder
// computed exactly), then e ln 2 + 2 s + s^3 (2/3 + 2 s^2 / 5 + ...).
fn ln_dd(x: vec4<f32>) -> Dd {
    let f = mantissa_exponent(x);
    let m = f.m;
    let e = f.e;
    let u = m - 1.0;
    let v = two_sum(m, vec4<f32>(1.0));
    let s = u / v.hi;
    let q = two_prod(s, v.hi);
    let s_lo = (((u - q.hi) - q.lo) - s * v.lo) / v.hi;
    let z = s * s + 2.0 * s * s_lo;
    let tail = (s + s_lo) * z * (2.0 / 3.0 + z * (0.4 + z * (2.0 / 7.0 + z * (2.0 / 9.0 + z * (2.0 / 11.0 + z * (2.0 / 13.0))))));
    let a = two_sum(e * 0.693145751953125, 2.0 * s);
    return two_sum(a.hi, a.lo + (2.0 * s_lo + tail + e * 1.42860682030941723e-6));
}
// x^y as IEEE 754 (and JavaScript) define it; the GPU's pow is undefined for x < 0 and 0^0, and
// exp(y ln x) in float32 loses the bits of y ln x (37 ULP at 0.0237^6.31). Here y ln |x| is a
// double-float (ln_dd, two_prod) and its exponential takes the low part (exp_parts). The
// built-in decides only where |x| is 0, subnormal or infinite, y is infinite, or the result
// overflows or is subnormal or zero.
fn f_pow(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> {
    let ax = abs(x);
    let l = ln_dd(ax);
    let t = two_prod(y, l.hi);
    let accurate = exp_parts(t.hi, t.lo + y * l.lo, 0.0);
    let plain = (ax < vec4<f32>(1.17549435e-38)) | (ax == inf4()) | (abs(y) == inf4())
        | (t.hi < vec4<f32>(-87.33)) | (t.hi >= vec4<f32>(89.5));
    let m = select(accurate, pow(ax, y), plain);
    let whole = floor(y) == y;
    let odd = whole & (floor(y * 0.5) * 2.0 != y);
    var r = select(m, -m, (x < vec4<f32>(0.0)) & odd);
    r = select(r, nan4(), (x < vec4<f32>(0.0)) & !whole);
    return select(keep_nan(x, keep_nan(y, r)), vec4<f32>(1.0), y == vec4<f32>(0.0));
}
fn f_pow_builtin(x: vec4<f32>, y: vec4<f32>) -> vec4<f32> { return pow(x, y); }
