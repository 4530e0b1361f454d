// Element-wise kernel: out = EXPR(a, b, ...) for every element, in ONE pass; the twin of
// map.wgsl. src/expr.rs generates EXPR from the helpers below; each works on one texel.

vec4 p4(int i) { return vec4(param(i)); }
vec4 nan4() { return vec4(intBitsToFloat(0x7fc00000)); }

vec4 f_add(vec4 x, vec4 y) { return x + y; }
vec4 f_sub(vec4 x, vec4 y) { return x - y; }
vec4 f_mul(vec4 x, vec4 y) { return x * y; }
vec4 f_div(vec4 x, vec4 y) { return x / y; }
vec4 f_max(vec4 x, vec4 y) { return max(x, y); }
vec4 f_min(vec4 x, vec4 y) { return min(x, y); }
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
    return mix(y, refined, ok);
}
vec4 f_invcbrt(vec4 x) { return 1.0 / f_cbrt(x); }
vec4 f_exp(vec4 x) { return exp(x); }
vec4 f_ln(vec4 x) { return log(x); }
vec4 f_log10(vec4 x) { return log2(x) * 0.30102999566398120; }
vec4 f_cos(vec4 x) { return cos(x); }
vec4 f_sin(vec4 x) { return sin(x); }
vec4 f_tan(vec4 x) { return tan(x); }
vec4 f_acos(vec4 x) { return acos(x); }
vec4 f_asin(vec4 x) { return asin(x); }
vec4 f_atan(vec4 x) { return atan(x); }
vec4 f_atan2(vec4 y, vec4 x) { return atan(y, x); }
vec4 f_cosh(vec4 x) { return cosh(x); }
vec4 f_acosh(vec4 x) { return acosh(x); }
vec4 f_sinh_builtin(vec4 x) { return sinh(x); }
vec4 f_tanh_builtin(vec4 x) { return tanh(x); }
vec4 f_asinh_builtin(vec4 x) { return asinh(x); }
vec4 f_atanh_builtin(vec4 x) { return atanh(x); }

// log(1 + u) without losing u when it is tiny (Goldberg's trick: the rounding of 1 + u cancels).
vec4 log1p4(vec4 u) {
    vec4 w = 1.0 + u;
    return mix(log(w) * u / (w - 1.0), u, equal(w, vec4(1.0)));
}
// sinh: a Taylor series near 0, where (e^x - e^-x) / 2 cancels.
vec4 f_sinh(vec4 x) {
    vec4 x2 = x * x;
    vec4 series = x * (1.0 + x2 * (1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (1.0 / 5040.0))));
    return mix(sinh(x), series, lessThan(abs(x), vec4(0.5)));
}
// tanh: sinh / cosh near 0; 1 - 2 / (e^2|x| + 1) elsewhere, which tends to 1 instead of inf/inf.
vec4 f_tanh(vec4 x) {
    vec4 big = sign(x) * (1.0 - 2.0 / (exp(2.0 * abs(x)) + 1.0));
    return mix(big, f_sinh(x) / cosh(x), lessThan(abs(x), vec4(0.5)));
}
// asinh: log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) with the sign of x; log(2|x|) where x^2 overflows.
vec4 f_asinh(vec4 x) {
    vec4 a = abs(x);
    vec4 near = log1p4(a + a * a / (1.0 + sqrt(1.0 + a * a)));
    vec4 far = log(a) + 0.69314718055994531;
    return sign(x) * mix(near, far, greaterThan(a, vec4(1e18)));
}
// atanh: log1p(2|x| / (1 - |x|)) / 2 with the sign of x.
vec4 f_atanh(vec4 x) {
    vec4 a = abs(x);
    return sign(x) * 0.5 * log1p4(2.0 * a / (1.0 - a));
}
// x^y as IEEE 754 (and JavaScript) define it; the GPU's pow is undefined for x < 0 and 0^0.
vec4 f_pow(vec4 x, vec4 y) {
    vec4 m = pow(abs(x), y);
    bvec4 whole = equal(floor(y), y);
    bvec4 odd = bvec4(uvec4(whole) * uvec4(notEqual(floor(y * 0.5) * 2.0, y)));
    bvec4 negative = lessThan(x, vec4(0.0));
    vec4 r = mix(m, -m, bvec4(uvec4(negative) * uvec4(odd)));
    r = mix(r, nan4(), bvec4(uvec4(negative) * uvec4(not(whole))));
    return mix(r, vec4(1.0), equal(y, vec4(0.0)));
}
vec4 f_pow_builtin(vec4 x, vec4 y) { return pow(x, y); }

vec4 kernel(ivec2 texel) {
    return mask_padding(texel.y, {expr});
}
