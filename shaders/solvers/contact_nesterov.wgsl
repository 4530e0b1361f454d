// One iteration of accelerated projected Jacobi (Nesterov's momentum, FISTA's schedule, a
// restart per contact) for the contact LCP; src/physics/lcp.rs has the layout and the float64
// twin (`ContactLcp::solve_nesterov`). Texel row i is contact i: (normal, tangent 1, tangent 2,
// and a fourth value below).
//
//   x_new_i = proj(y_i + s P_i (b_i + sum_j A_ij y_j))
//   t_new_i = 1 if (y_i - x_new_i) . (x_new_i - x_i) > 0 (the step turned back: restart),
//             else t'(t_i), with t'(t) = (1 + sqrt(1 + 4 t^2)) / 2
//   y_new_i = x_new_i + beta (x_new_i - x_i),  beta = (t_new_i - 1) / t'(t_new_i)
//
// y is the extrapolation the next iteration steps from, made here, per contact, so that the
// sum over neighbours reads one texel of y each, as projected Jacobi reads x; its fourth value
// is the counter t it was made with (0 in the warm start, where y = x). Two render targets: x
// (fourth value 0) and y.
//
// Inputs: a = A (dense: column 4j + c is column c of block A_ij; blocks: column 4s + c for
// neighbour s), b = neighbour lists (blocks only), c = y, d = x, e = b of the LCP, f = P =
// 1 / diag(A). param(0) = the step s (negative, seed convention), param(1) = blocks per
// contact, param(2) = 1 for dense, param(3) = mu.

fn advanced(t: f32) -> f32 {
    return 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
}

fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    let i = texel.y;
    let count = i32(param(1));
    let dense = param(2) > 0.5;
    var w = e_texel(0, i).xyz;
    for (var s = 0; s < count; s++) {
        var j = s;
        if (!dense) {
            let list = b_texel(s / 4, i);
            j = i32(list[s % 4]);
            if (j < 0) { break; }
        }
        let yj = c_texel(0, j);
        w += (a_texel(4 * s, i) * yj.x + a_texel(4 * s + 1, i) * yj.y + a_texel(4 * s + 2, i) * yj.z).xyz;
    }
    let y = c_texel(0, i);
    let x = d_texel(0, i).xyz;
    let z = y.xyz + param(0) * f_texel(0, i).xyz * w;
    let n = max(z.x, 0.0);
    let limit = param(3) * n;
    let next = vec3<f32>(n, clamp(z.yz, vec2<f32>(-limit), vec2<f32>(limit)));
    let restart = dot(y.xyz - next, next - x) > 0.0;
    let t = select(advanced(y.w), 1.0, restart);
    let beta = (t - 1.0) / advanced(t);
    return array<vec4<f32>, 2>(vec4<f32>(next, 0.0), vec4<f32>(next + beta * (next - x), t));
}
