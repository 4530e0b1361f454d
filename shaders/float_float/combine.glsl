// Last pass of a float-float reduction: the four lanes of the one remaining texel (a, b: hi
// and lo) added in float-float, written as matrix rows 0 and 1 of a 2 x 1 output: (hi, lo).
vec4 kernel(ivec2 texel) {
    vec4 h = a_texel(0, 0);
    vec4 l = b_texel(0, 0);
    Ff xy = ff_add(ff_splat(h.x, l.x), ff_splat(h.y, l.y));
    Ff zw = ff_add(ff_splat(h.z, l.z), ff_splat(h.w, l.w));
    Ff s = ff_add(xy, zw);
    return vec4(s.hi.x, s.lo.x, 0.0, 0.0);
}
