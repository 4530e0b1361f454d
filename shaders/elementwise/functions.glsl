// The functions of element-wise expressions, the twin of functions.wgsl: src/expr.rs emits
// calls to them; each works on one texel.

vec4 p4(int i) { return vec4(param(i)); }
// Special values. GPUs need not follow IEEE 754 in their built-in functions (several return
// numbers for NaN, or log(0) = -88), so the helpers below pass NaN through and handle the
// edges themselves; the `_builtin` variants keep the GPU's own behaviour for comparison.
vec4 inf4() { return vec4(uintBitsToFloat(0x7f800000u + uint(min(out_rows(), 0)))); }

vec4 nan4() { return vec4(intBitsToFloat(0x7fc00000)); }

vec4 f_add(vec4 x, vec4 y) { return x + y; }
vec4 f_sub(vec4 x, vec4 y) { return x - y; }
vec4 f_mul(vec4 x, vec4 y) { return x * y; }
vec4 f_div(vec4 x, vec4 y) { return x / y; }
// max and min pass NaN on, as JavaScript's Math.max does (GPU max drops it).
vec4 f_max(vec4 x, vec4 y) { return keep_nan(x, keep_nan(y, max(x, y))); }
vec4 f_min(vec4 x, vec4 y) { return keep_nan(x, keep_nan(y, min(x, y))); }
vec4 f_neg(vec4 x) { return -x; }
vec4 f_abs(vec4 x) { return abs(x); }
vec4 f_inv(vec4 x) { return 1.0 / x; }
vec4 f_sqrt(vec4 x) { return sqrt(x); }
// 1 / sqrt(x) rather than inversesqrt: IEEE results at 0 (inf) and an exactly rounded sqrt.
vec4 f_invsqrt(vec4 x) { return 1.0 / sqrt(x); }
// pow(|x|, 1/3) with the sign of x, then one Newton step to recover the last bits.
vec4 f_cbrt(vec4 x) {
    vec4 y = sign(x) * pow(abs(x), vec4(1.0 / 3.0));
    vec4 refined = y - (y * y * y - x) / (3.0 * y * y);
    bvec4 ok = bvec4(uvec4(greaterThan(abs(y), vec4(1e-12))) * uvec4(lessThan(abs(y), vec4(1e12))));
    return keep_nan(x, mix(mix(y, refined, ok), x, equal(x, vec4(0.0)))); // cbrt(-0) = -0
}
vec4 f_invcbrt(vec4 x) { return 1.0 / f_cbrt(x); }

// Double-float arithmetic (two_prod, two_sum) and exact powers of two: the twins of
// functions.wgsl's, which explain them. GLSL ES 3.00 has no fma; the split by masking needs none.
vec4 pow2(vec4 n) {
    uvec4 e = uvec4(clamp(n, vec4(-126.0), vec4(127.0)) + 127.0);
    return uintBitsToFloat(e << 23u);
}
vec4 hi12(vec4 a) { return uintBitsToFloat(floatBitsToUint(a) & uvec4(0xfffff000u)); }
struct Dd {
    vec4 hi;
    vec4 lo;
};
Dd two_prod(vec4 a, vec4 b) {
    vec4 p = a * b;
    vec4 ah = hi12(a);
    vec4 al = a - ah;
    vec4 bh = hi12(b);
    vec4 bl = b - bh;
    return Dd(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl);
}
Dd two_sum(vec4 a, vec4 b) {
    vec4 s = a + b;
    vec4 bb = s - a;
    return Dd(s, (a - (s - bb)) + (b - bb));
}
// e^(x + lo) 2^s; the twin of exp_parts in functions.wgsl, which explains it.
vec4 exp_parts(vec4 x, vec4 lo, float s) {
    vec4 k = round(x * 1.4426950408889634);
    vec4 r = ((x - k * 0.693145751953125) - k * 1.42860682030941723e-6) + lo;
    vec4 p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0
        + r * (1.0 / 720.0 + r * (1.0 / 5040.0 + r * (1.0 / 40320.0))))))));
    vec4 e = k + s;
    vec4 h = floor(e * 0.5);
    return p * pow2(h) * pow2(e - h);
}
vec4 exp_scaled(vec4 x, float s) { return exp_parts(x, vec4(0.0), s); }
// e^x: infinite past 88.73; below -87.33 the built-in decides (see functions.wgsl).
vec4 f_exp(vec4 x) {
    vec4 r = exp_scaled(min(x, vec4(90.0)), 0.0);
    return keep_nan(x, mix(r, exp(x), lessThan(x, vec4(-87.33))));
}
// ln(1 + u) for |u| < 0.41 from the series 2 atanh(s), s = u / (2 + u): exact near u = 0.
vec4 ln_near_one(vec4 u) {
    vec4 s = u / (2.0 + u);
    vec4 z = s * s;
    return 2.0 * s * (1.0 + z * (1.0 / 3.0 + z * (0.2 + z * (1.0 / 7.0 + z * (1.0 / 9.0 + z * (1.0 / 11.0))))));
}
// Positive normal x = m 2^e with m in [0.707, 1.414]: the twin of mantissa_exponent in
// functions.wgsl.
vec4 mantissa_exponent(vec4 x, out vec4 e) {
    uvec4 bits = floatBitsToUint(x);
    e = vec4(ivec4((bits >> 23u) & uvec4(0xffu)) - ivec4(127));
    vec4 m = uintBitsToFloat((bits & uvec4(0x007fffffu)) | uvec4(0x3f800000u));
    bvec4 big = greaterThan(m, vec4(1.41421356));
    e = mix(e, e + 1.0, big);
    return mix(m, m * 0.5, big);
}
// ln x for positive normal x: ln x = e ln 2 + ln m. GPU logs promise only 2^-21 absolute near 1.
vec4 ln_reduced(vec4 x) {
    vec4 e;
    vec4 m = mantissa_exponent(x, e);
    return e * 0.693145751953125 + (e * 1.42860682030941723e-6 + ln_near_one(m - 1.0));
}
// ln(1 + u), accurate for tiny u too.
vec4 log1p4(vec4 u) {
    return mix(ln_reduced(1.0 + u), ln_near_one(u), lessThan(abs(u), vec4(0.41)));
}
// log: NaN below 0, -inf at 0, +inf at +inf.
vec4 f_ln(vec4 x) {
    vec4 r = mix(ln_reduced(x), -inf4(), equal(x, vec4(0.0)));
    r = mix(r, inf4(), equal(x, inf4()));
    return keep_nan(x, mix(r, nan4(), lessThan(x, vec4(0.0))));
}
vec4 f_log10(vec4 x) { return f_ln(x) * 0.43429448190325183; }
vec4 f_ln_builtin(vec4 x) { return log(x); }

// sin, cos and tan: Payne-Hanek's reduction beyond pi/4 and Cephes' polynomials, the twins of
// functions.wgsl's, which explain them.
const float TWO_OVER_PI[22] = float[22](2607.0, 2435.0, 1764.0, 3652.0, 338.0, 2556.0, 629.0, 2001.0, 3923.0, 1245.0, 3085.0, 2914.0, 2393.0, 2364.0, 1081.0, 65.0, 4069.0, 355.0, 2749.0, 3771.0, 3158.0, 439.0);
vec4 mod4_term(vec4 p, ivec4 k) {
    vec4 t = p * pow2(vec4(max(k, ivec4(-126))));
    return mix(t - 4.0 * floor(t * 0.25), vec4(0.0), greaterThanEqual(k, ivec4(2)));
}
vec4 reduce_large(vec4 x, out ivec4 q) {
    uvec4 bits = floatBitsToUint(abs(x));
    ivec4 e = ivec4((bits >> 23u) & uvec4(0xffu)) - ivec4(127);
    vec4 m = vec4((bits & uvec4(0x7fffffu)) | uvec4(0x800000u));
    vec4 mh = floor(m / 4096.0);
    vec4 ml = m - mh * 4096.0;
    vec4 hi = vec4(0.0);
    vec4 lo = vec4(0.0);
    int top = max(max(e.x, e.y), max(e.z, e.w));
    int bottom = min(min(e.x, e.y), min(e.z, e.w));
    for (int j = max(0, (bottom - 37) / 12); j <= min((top + 61) / 12, 21); j++) {
        float d = TWO_OVER_PI[j];
        ivec4 k = e - ivec4(23 + 12 * j);
        Dd a = two_sum(hi, mod4_term(mh * d, k));
        hi = a.hi - 4.0 * floor(a.hi * 0.25);
        lo += a.lo;
        Dd b = two_sum(hi, mod4_term(ml * d, k - ivec4(12)));
        hi = b.hi - 4.0 * floor(b.hi * 0.25);
        lo += b.lo;
    }
    vec4 n = round(hi);
    vec4 f = hi - n;
    Dd p = two_prod(f, vec4(1.57079637050628662));
    vec4 r = p.hi + (p.lo + (f * -4.37113900018624283e-8 + lo * 1.57079637050628662));
    q = ivec4(n) & ivec4(3);
    bvec4 negative = lessThan(x, vec4(0.0));
    q = ivec4(mix(vec4(q), vec4((ivec4(4) - q) & ivec4(3)), negative));
    return mix(r, -r, negative);
}
vec4 reduce_half_pi(vec4 x, out ivec4 q) {
    bvec4 large = greaterThan(abs(x), vec4(0.78539816));
    q = ivec4(0);
    if (!any(large)) {
        return x;
    }
    ivec4 lq;
    vec4 lr = reduce_large(x, lq);
    q = ivec4(mix(vec4(0.0), vec4(lq), large));
    return mix(x, lr, large);
}
// The reduced result r, NaN at +-inf, NaN kept.
vec4 big_arg(vec4 x, vec4 r) {
    return keep_nan(x, mix(r, nan4(), equal(abs(x), inf4())));
}
vec4 sin_poly(vec4 r) {
    vec4 z = r * r;
    return r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
}
vec4 cos_poly(vec4 r) {
    vec4 z = r * r;
    return 1.0 - 0.5 * z + z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
}
vec4 f_sin(vec4 x) {
    ivec4 q;
    vec4 r = reduce_half_pi(x, q);
    vec4 v = mix(sin_poly(r), cos_poly(r), equal(q & ivec4(1), ivec4(1)));
    v = mix(v, -v, equal(q & ivec4(2), ivec4(2)));
    return big_arg(x, v);
}
vec4 f_cos(vec4 x) {
    ivec4 q;
    vec4 r = reduce_half_pi(x, q);
    vec4 v = mix(cos_poly(r), sin_poly(r), equal(q & ivec4(1), ivec4(1)));
    v = mix(v, -v, equal((q + 1) & ivec4(2), ivec4(2)));
    return big_arg(x, v);
}
vec4 f_tan(vec4 x) {
    ivec4 q;
    vec4 r = reduce_half_pi(x, q);
    vec4 s = sin_poly(r);
    vec4 c = cos_poly(r);
    vec4 t = mix(s / c, -c / s, equal(q & ivec4(1), ivec4(1)));
    return big_arg(x, t);
}
vec4 f_sin_builtin(vec4 x) { return sin(x); }
vec4 f_cos_builtin(vec4 x) { return cos(x); }
vec4 f_tan_builtin(vec4 x) { return tan(x); }
// acos as 2 atan(sqrt((1 - x) / (1 + x))): relative accuracy near x = 1, where acos -> 0.
vec4 f_acos(vec4 x) { return keep_nan(x, 2.0 * atan(sqrt((1.0 - x) / (1.0 + x)))); }
vec4 f_acos_builtin(vec4 x) { return acos(x); }
vec4 f_asin(vec4 x) { return keep_nan(x, asin(x)); }
vec4 f_atan(vec4 x) { return keep_nan(x, atan(x)); }
vec4 f_atan2(vec4 y, vec4 x) { return keep_nan(x, keep_nan(y, atan(y, x))); }
// cosh, sinh and tanh: the twins of functions.wgsl's, which explain them.
vec4 f_cosh(vec4 x) {
    vec4 a = min(abs(x), vec4(90.0));
    vec4 e = exp_scaled(a, 0.0);
    return keep_nan(x, mix(0.5 * (e + 1.0 / e), exp_scaled(a, -1.0), greaterThan(a, vec4(9.0))));
}
// acosh: log1p(t + sqrt(2t + t^2)) with t = x - 1, accurate near 1; ln(2x) where t^2 overflows.
vec4 f_acosh(vec4 x) {
    vec4 t = x - 1.0;
    vec4 near = log1p4(t + sqrt(2.0 * t + t * t));
    vec4 r = mix(near, f_ln(x) + 0.69314718055994531, greaterThan(x, vec4(1e18)));
    return keep_nan(x, mix(r, nan4(), lessThan(x, vec4(1.0))));
}
vec4 f_acosh_builtin(vec4 x) { return acosh(x); }
vec4 f_sinh_builtin(vec4 x) { return sinh(x); }
vec4 f_tanh_builtin(vec4 x) { return tanh(x); }
vec4 f_asinh_builtin(vec4 x) { return asinh(x); }
vec4 f_atanh_builtin(vec4 x) { return atanh(x); }

vec4 f_sinh(vec4 x) {
    vec4 a = min(abs(x), vec4(90.0));
    vec4 x2 = x * x;
    vec4 series = x * (1.0 + x2 * (1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (1.0 / 5040.0
        + x2 * (1.0 / 362880.0 + x2 * (1.0 / 39916800.0 + x2 * (1.0 / 6227020800.0)))))));
    vec4 e = exp_scaled(a, 0.0);
    vec4 r = sign(x) * mix(0.5 * (e - 1.0 / e), exp_scaled(a, -1.0), greaterThan(a, vec4(9.0)));
    return keep_nan(x, mix(r, series, lessThan(a, vec4(1.0))));
}
vec4 f_tanh(vec4 x) {
    vec4 x2 = x * x;
    vec4 d = -x2 * (1.0 / 3.0 + x2 * (1.0 / 30.0 + x2 * (1.0 / 840.0 + x2 * (1.0 / 45360.0
        + x2 * (1.0 / 3991680.0 + x2 * (1.0 / 518918400.0))))));
    vec4 b = x2 * (0.5 + x2 * (1.0 / 24.0 + x2 * (1.0 / 720.0 + x2 * (1.0 / 40320.0
        + x2 * (1.0 / 3628800.0 + x2 * (1.0 / 479001600.0))))));
    vec4 small = x + x * d / (1.0 + b);
    vec4 big = sign(x) * (1.0 - 2.0 / (exp_scaled(min(2.0 * abs(x), vec4(88.0)), 0.0) + 1.0));
    return keep_nan(x, mix(big, small, lessThan(abs(x), vec4(0.5))));
}
// asinh: log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) with the sign of x; log(2|x|) where x^2 overflows.
vec4 f_asinh(vec4 x) {
    vec4 a = abs(x);
    vec4 near = log1p4(a + a * a / (1.0 + sqrt(1.0 + a * a)));
    vec4 far = f_ln(a) + 0.69314718055994531;
    return keep_nan(x, sign(x) * mix(near, far, greaterThan(a, vec4(1e18))));
}
// atanh: log1p(2|x| / (1 - |x|)) / 2 with the sign of x; +-inf at +-1, NaN beyond.
vec4 f_atanh(vec4 x) {
    vec4 a = abs(x);
    vec4 r = mix(0.5 * log1p4(2.0 * a / (1.0 - a)), inf4(), equal(a, vec4(1.0)));
    r = mix(r, nan4(), greaterThan(a, vec4(1.0)));
    return keep_nan(x, sign(x) * r);
}
// pow through ln_dd and exp_parts: the twins of functions.wgsl's, which explain them.
Dd ln_dd(vec4 x) {
    vec4 e;
    vec4 m = mantissa_exponent(x, e);
    vec4 u = m - 1.0;
    Dd v = two_sum(m, vec4(1.0));
    vec4 s = u / v.hi;
    Dd q = two_prod(s, v.hi);
    vec4 s_lo = (((u - q.hi) - q.lo) - s * v.lo) / v.hi;
    vec4 z = s * s + 2.0 * s * s_lo;
    vec4 tail = (s + s_lo) * z * (2.0 / 3.0 + z * (0.4 + z * (2.0 / 7.0 + z * (2.0 / 9.0 + z * (2.0 / 11.0 + z * (2.0 / 13.0))))));
    Dd a = two_sum(e * 0.693145751953125, 2.0 * s);
    return two_sum(a.hi, a.lo + (2.0 * s_lo + tail + e * 1.42860682030941723e-6));
}
vec4 f_pow(vec4 x, vec4 y) {
    vec4 ax = abs(x);
    Dd l = ln_dd(ax);
    Dd t = two_prod(y, l.hi);
    vec4 accurate = exp_parts(t.hi, t.lo + y * l.lo, 0.0);
    uvec4 plain = uvec4(lessThan(ax, vec4(1.17549435e-38))) | uvec4(equal(ax, inf4()))
        | uvec4(equal(abs(y), inf4())) | uvec4(lessThan(t.hi, vec4(-87.33)))
        | uvec4(greaterThanEqual(t.hi, vec4(89.5)));
    vec4 m = mix(accurate, pow(ax, y), bvec4(plain));
    bvec4 whole = equal(floor(y), y);
    bvec4 odd = bvec4(uvec4(whole) * uvec4(notEqual(floor(y * 0.5) * 2.0, y)));
    bvec4 negative = lessThan(x, vec4(0.0));
    vec4 r = mix(m, -m, bvec4(uvec4(negative) * uvec4(odd)));
    r = mix(r, nan4(), bvec4(uvec4(negative) * uvec4(not(whole))));
    return mix(keep_nan(x, keep_nan(y, r)), vec4(1.0), equal(y, vec4(0.0)));
}
vec4 f_pow_builtin(vec4 x, vec4 y) { return pow(x, y); }
