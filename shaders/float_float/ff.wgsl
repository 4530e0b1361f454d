// Float-float arithmetic, four lanes at once: the shared piece every kernel of this folder
// starts with (src/kernels/float_float.rs puts it before the kernel body).
//
// A float-float number is the unevaluated sum hi + lo of two float32s with |lo| <= ulp(hi)/2:
// about 48 significant bits. Everything rests on two error-free transformations, each giving
// a rounded result AND its exact rounding error, so that nothing is lost:
//   two_sum   (Knuth, TAOCP vol. 2, 4.2.2): s + e == a + b exactly, for any a and b;
//   two_prod  p + e == a * b exactly: fma(a, b, -p) is the error of p = a * b where fma rounds
//             once, after the exact product; Dekker's split (1971) where it does not.
// WGSL, like Vulkan, allows an fma that rounds twice, and SwiftShader's does (measured here:
// the products came out with float32's 3e-8 relative error), so each kernel checks its fma
// at run time (ff_fma_fused) and falls back to Dekker's exact product, as the GLSL twin always
// does. Both fail if the compiler reassociates (s - a rewritten as b); WGSL has no fast-math,
// and tests/float_float.rs checks exact integer products up to 2^48 on both backends.
struct Ff {
    hi: vec4<f32>,
    lo: vec4<f32>,
}

// 1, from a uniform (out_rows() >= 1), so that no compiler knows it.
fn ff_one() -> f32 {
    return 1.0 + f32(min(out_rows(), 0));
}

// x, hidden from the compiler's algebra: times a 1 it cannot know. A compiler that simplifies
// or reassociates floating-point expressions (NVIDIA's Vulkan driver does, as the H100 showed:
// float-float results equal to float32's to the last bit) would rewrite (a + b) - a as b and
// lose every error term; it cannot see through an opaque factor. Fusing x * 1 into an add is
// harmless: it rounds once, as the add alone does.
fn ff_opaque(x: vec4<f32>) -> vec4<f32> {
    return x * ff_one();
}

// Knuth's two-sum: s = fl(a + b) and its error e, in 6 operations without a branch, each
// intermediate opaque (ff_opaque).
fn ff_two_sum(a: vec4<f32>, b: vec4<f32>) -> Ff {
    let s = ff_opaque(a + b);
    let bb = ff_opaque(s - a);
    let e = ff_opaque(a - ff_opaque(s - bb)) + ff_opaque(b - bb);
    return Ff(s, e);
}

// Whether this GPU's fma is fused (rounds once). 4097 * 4097 = 16785409 needs 25 bits, so
// a * b rounds it to 16785408 and only a fused fma gives the 1 back. 4097 arrives through
// out_rows() (always >= 1), so no compiler can fold the check into a constant.
fn ff_fma_fused() -> bool {
    let t = 4097.0 + f32(min(out_rows(), 0));
    return fma(t, t, -16785408.0) == 1.0;
}

// a's top 12 significant bits (sign and exponent kept, the low 12 mantissa bits cleared): the
// high half of Dekker's split, by masking, which no compiler can rewrite (the usual a * 4097
// split breaks when a * 4097 - a is contracted into an fma).
fn ff_hi12(a: vec4<f32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(bitcast<vec4<u32>>(a) & vec4<u32>(0xfffff000u));
}

// Two-product: p = fl(a * b) and its exact error (no overflow or underflow). With a fused fma
// the error is fma(a, b, -p). Otherwise Dekker's: a = ah + al and b = bh + bl with halves of at
// most 12 significant bits, so ah * bh, ah * bl, al * bh and al * bl are all exact, and so is
// each partial sum below (Dekker's proof).
//
// p is rounded on its own, then multiplied by a 1 the compiler cannot know (it comes from a
// uniform): otherwise a compiler that contracts (NVIDIA's Vulkan driver does) fuses p into the
// add that consumes it, fma(a, b, c) instead of fl(p) + c, and the two-sum after it loses its
// error term (measured on the H100: float-float products at float32's 1e-7). Fusing p * one
// with that add is harmless: fl(p) * 1 + c rounds once, as fl(p) + c does.
fn ff_two_prod(a: vec4<f32>, b: vec4<f32>) -> Ff {
    let p = ff_opaque(a * b);
    if (ff_fma_fused()) {
        return Ff(p, fma(a, b, -p));
    }
    let ah = ff_hi12(a);
    let al = a - ah;
    let bh = ff_hi12(b);
    let bl = b - bh;
    return Ff(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl);
}

// a + b, both float-float, normalized (|lo| <= ulp(hi)/2). The two highs and the two lows are
// added by two-sum; the high sum's error joins the low sum by a third two-sum, so that what a
// plain float add would round off there is carried too: integer sums below 2^48 come out exact.
// The last two two-sums renormalize (two-sums, not Dekker's faster |a| >= |b| variant, because
// after cancellation the high part may be the smaller one). The three low parts are summed
// with each partial sum opaque: NVIDIA's Vulkan driver otherwise regroups that sum with the
// two-sums around it, and products and A x lost about one float32 rounding per element
// (2e-9 relative on the H100; 2e-15 with the opaque sums, bench/records/h100/float-float/).
fn ff_add(a: Ff, b: Ff) -> Ff {
    let s = ff_two_sum(a.hi, b.hi);
    let t = ff_two_sum(a.lo, b.lo);
    let u = ff_two_sum(s.lo, t.hi);
    let v = ff_two_sum(s.hi, u.hi);
    return ff_two_sum(v.hi, ff_opaque(v.lo + ff_opaque(u.lo + t.lo)));
}

// a * b, both float-float, NOT renormalized (ff_add or ff_norm does that): the exact product
// of the highs plus the cross terms; lo * lo (2^-48 relative) is dropped.
fn ff_mul(a: Ff, b: Ff) -> Ff {
    let p = ff_two_prod(a.hi, b.hi);
    return Ff(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

// hi + lo renormalized so that |lo| <= ulp(hi)/2.
fn ff_norm(a: Ff) -> Ff {
    return ff_two_sum(a.hi, a.lo);
}

// A float-float scalar (hi, lo) in all four lanes.
fn ff_splat(hi: f32, lo: f32) -> Ff {
    return Ff(vec4<f32>(hi), vec4<f32>(lo));
}

// The float-float texel of a matrix stored as two textures: `hi` and `lo` fetched at one place.
fn ff_texel(hi: vec4<f32>, lo: vec4<f32>) -> Ff {
    return Ff(hi, lo);
}
