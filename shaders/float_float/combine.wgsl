// Last pass of a float-float reduction: the four lanes of the one remaining texel (a, b: hi
// and lo) added in float-float, written as matrix rows 0 and 1 of a 2 x 1 output: (hi, lo).
fn kernel(texel: vec2<i32>) -> vec4<f32> {
    let h = a_texel(0, 0);
    let l = b_texel(0, 0);
    let xy = ff_add(ff_splat(h.x, l.x), ff_splat(h.y, l.y));
    let zw = ff_add(ff_splat(h.z, l.z), ff_splat(h.w, l.w));
    let s = ff_add(xy, zw);
    return vec4<f32>(s.hi.x, s.lo.x, 0.0, 0.0);
}
