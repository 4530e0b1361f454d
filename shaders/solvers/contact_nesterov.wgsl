// One iteration of accelerated projected Jacobi (Nesterov's momentum, FISTA's schedule, a
// restart per contact) for the contact LCP; src/physics/lcp.rs has the layout of one segment
// and the float64 twin (`ContactLcp::solve_nesterov`), contact_layout.wgsl (put before this
// body) the wrap into segments. Output texel (s, y) is the contact at row y of segment s:
// (normal, tangent 1, tangent 2, and a fourth value below).
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
// neighbour s; 4 * param(1) columns per contact), b = neighbour lists (blocks only), c = y, d = x,
// e = b of the LCP, f = P = 1 / diag(A). param(0) = the step s (negative, seed convention), param(1) = blocks per
// contact, param(2) = 1 for dense, param(3) = mu.

// Neighbour s's part of (A y)_i for the contact at `me` (segment, row): block s of its row
// times y_j, zero where j < 0; the column is clamped so that every fetch stays inside the
// contact's 4 * count columns of A.
fn term(me: vec2<i32>, count: i32, s: i32, j: i32) -> vec3<f32> {
    let col = contact_column(me.x, min(4 * s, 4 * count - 4), 4 * count);
    let at = contact_texel(max(j, 0));
    let yj = select(vec4<f32>(0.0), c_texel(at.x, at.y), j >= 0);
    let i = me.y;
    return (a_texel(col, i) * yj.x + a_texel(col + 1, i) * yj.y + a_texel(col + 2, i) * yj.z).xyz;
}

fn kernel(texel: vec2<i32>) -> array<vec4<f32>, 2> {
    let i = texel.y;
    let count = i32(param(1));
    let dense = param(2) > 0.5;
    var w = e_texel(texel.x, i).xyz;
    // Four neighbours at a time (one texel of the list), their fetches independent of each
    // other. Dense: neighbour s is contact s; blocks: the list names them and ends with -1.
    for (var s = 0; s < count; s += 4) {
        let slot = vec4<i32>(s) + vec4<i32>(0, 1, 2, 3);
        var j = slot;
        if (!dense) {
            j = vec4<i32>(b_texel(contact_column(texel.x, s / 4, count / 4), i));
        }
        j = select(vec4<i32>(-1), j, slot < vec4<i32>(count));
        w += term(texel, count, s, j.x) + term(texel, count, s + 1, j.y) + term(texel, count, s + 2, j.z) + term(texel, count, s + 3, j.w);
        if (j.w < 0) { break; }
    }
    let y = c_texel(texel.x, i);
    let x = d_texel(texel.x, i).xyz;
    let z = y.xyz + param(0) * f_texel(texel.x, i).xyz * w;
    return nesterov_step(z, y, x, param(3));
}
