// Float-float arithmetic, four lanes at once, GLSL ES 3.00: the twin of ff.wgsl, which explains
// the representation (hi + lo, |lo| <= ulp(hi)/2, about 48 bits) and two-sum.
//
// GLSL ES 3.00 has no fma, so two_prod always uses Dekker's algorithm (1971), as the WGSL twin
// does where its fma is not fused (SwiftShader): split each factor into a high half of 12
// significant bits and a low half of at most 12, so that every partial product of halves is
// exact in float32, then recover fl(a * b)'s error from them. The usual split multiplies by
// 4097 (Veltkamp), which a compiler that contracts a * 4097 - a into an fma silently breaks;
// here the high half is made by masking the low 12 mantissa bits away (ff_hi12, as
// shaders/elementwise/functions.* does), which no compiler can rewrite.
struct Ff {
    vec4 hi;
    vec4 lo;
};

// Knuth's two-sum: s = fl(a + b) and its error e, in 6 operations without a branch.
// x times a 1 from a uniform, hidden from a compiler's algebra (see ff.wgsl's ff_opaque).
vec4 ff_opaque(vec4 x) {
    return x * (1.0 + float(min(out_rows(), 0)));
}

Ff ff_two_sum(vec4 a, vec4 b) {
    vec4 s = ff_opaque(a + b);
    vec4 bb = ff_opaque(s - a);
    vec4 e = ff_opaque(a - ff_opaque(s - bb)) + ff_opaque(b - bb);
    return Ff(s, e);
}

// a's top 12 significant bits (sign and exponent kept, the low 12 mantissa bits cleared).
vec4 ff_hi12(vec4 a) {
    return uintBitsToFloat(floatBitsToUint(a) & uvec4(0xfffff000u));
}

// Dekker's two-product: p = fl(a * b) and its exact error, from the 12-bit halves of a and b
// (ah * bh, ah * bl, al * bh and al * bl are all exact; so is each partial sum, by Dekker's
// proof, as long as nothing overflows or underflows).
// (p opaque: a contracting compiler cannot fuse it into the add that takes it; see ff.wgsl.)
Ff ff_two_prod(vec4 a, vec4 b) {
    vec4 p = ff_opaque(a * b);
    vec4 ah = ff_hi12(a);
    vec4 al = a - ah;
    vec4 bh = ff_hi12(b);
    vec4 bl = b - bh;
    return Ff(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl);
}

// a + b, both float-float, normalized: see ff.wgsl (integer sums below 2^48 come out exact).
Ff ff_add(Ff a, Ff b) {
    Ff s = ff_two_sum(a.hi, b.hi);
    Ff t = ff_two_sum(a.lo, b.lo);
    Ff u = ff_two_sum(s.lo, t.hi);
    Ff v = ff_two_sum(s.hi, u.hi);
    return ff_two_sum(v.hi, ff_opaque(v.lo + ff_opaque(u.lo + t.lo)));
}

// a * b, both float-float, NOT renormalized: the exact product of the highs plus the cross
// terms; lo * lo (2^-48 relative) is dropped.
Ff ff_mul(Ff a, Ff b) {
    Ff p = ff_two_prod(a.hi, b.hi);
    return Ff(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

// hi + lo renormalized so that |lo| <= ulp(hi)/2.
Ff ff_norm(Ff a) {
    return ff_two_sum(a.hi, a.lo);
}

// A float-float scalar (hi, lo) in all four lanes.
Ff ff_splat(float hi, float lo) {
    return Ff(vec4(hi), vec4(lo));
}

// The float-float texel of a matrix stored as two textures: `hi` and `lo` fetched at one place.
Ff ff_texel(vec4 hi, vec4 lo) {
    return Ff(hi, lo);
}
