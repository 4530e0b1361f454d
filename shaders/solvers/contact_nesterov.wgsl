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

// Neighbour s's part of (A y)_i: block s of row i times y_j, zero where j < 0; the column is
// clamped so that every fetch stays inside A.
fn term(i: i32, s: i32, j: i32) -> vec3<f32> {
    let col = min(4 * s, a_width() - 4);
    let yj = select(vec4<f32>(0.0), c_texel(0, max(j, 0)), j >= 0);
    return (a_texel(col, i) * yj.x + a_texel(col + 1, i) * yj.y + a_texel(col + 2, i) * yj.z).xyz;
}

fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    let i = texel.y;
    let count = i32(param(1));
    let dense = param(2) > 0.5;
    var w = e_texel(0, i).xyz;
    // Four neighbours at a time (one texel of the list), their fetches independent of each
    // other. Dense: neighbour s is contact s; blocks: the list names them and ends with -1.
    for (var s = 0; s < count; s += 4) {
        let slot = vec4<i32>(s) + vec4<i32>(0, 1, 2, 3);
        var j = slot;
        if (!dense) {
            j = vec4<i32>(b_texel(s / 4, i));
        }
        j = select(vec4<i32>(-1), j, slot < vec4<i32>(count));
        w += term(i, s, j.x) + term(i, s + 1, j.y) + term(i, s + 2, j.z) + term(i, s + 3, j.w);
        if (j.w < 0) { break; }
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
