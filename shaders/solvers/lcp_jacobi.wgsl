// Projected Jacobi for the LCP, ALL iterations in ONE dispatch (WebGPU compute path):
//   x <- max(x + (b + A x) .* d, 0),  d = omega / diag(A)   (omega < 0, as in lcp.rs).
// Inputs: a (n x n), b (n x 1), c = x0 (n x 1); param(0) = omega, param(1) = iterations.
// With FRICTION (the wall's contact LCP, src/physics/lcp.rs): texel row y is one contact
// (normal, tangent 1, tangent 2, padding); inputs d = 1 / diag(A) (0 on padding rows) and
// e = mu (on the contact's first row); the normal impulse is projected on >= 0 and the two
// friction impulses on [-mu n, mu n] with the NEW normal impulse n, as shaders/contact_jacobi.
//
// The texel rows of A come in blocks of {BR}; workgroup g of W owns blocks g, g + W, ... Every
// workgroup keeps the whole current x in workgroup memory. Where every workgroup owns one block,
// its threads hold their texels of A in registers for the whole run (lines naming m are written
// out once per register texel, kernel.rs), else they fetch them each iteration. Per iteration,
// thread (lane, r) sums texel row r of the block against x over the columns lane, lane + LANES,
// ...; the partial sums meet in workgroup memory, and the new x of the block goes to
// scratch storage, each word tagged with this iteration's tag in its lowest bit (the last bit
// of the mantissa, given up: 6e-8 relative).
// Then every workgroup polls the words of the new x until all carry the tag, and keeps them:
// each word proves itself, so no counter and no fence is needed, and one trip through memory
// passes x on. No pass, no submission, no read-back per iteration.
//
// Waiting for other workgroups needs them to run side by side, which WebGPU does not promise
// (GPUs do, for a few dozen workgroups; a software renderer may not): a wait gives up after
// SPIN_LIMIT poll rounds, and then the result is NaN, never a hang. With W = 1 nothing waits.
// The poll rounds go in step across the workgroup (no thread spins on its own: a divergent spin
// loop broke the loop around it on lavapipe).

const XW: i32 = {XW};             // words of x in workgroup memory (>= 4 * texel rows)
const BR: i32 = {BR};             // texel rows per block
const LANES: i32 = 256 / {BR};    // threads per texel row
const REG: i32 = {REG};           // texels of A each thread keeps in registers (0: none)
const SPIN_LIMIT: u32 = 1000000u;
const X0: i32 = 1;                // scratch[0]: 1 once a wait gave up; then two x buffers
const TAG: u32 = 1u;
const FRICTION: bool = {FRICTION};

@group(0) @binding(8) var<storage, read_write> scratch: array<atomic<u32>>;

var<workgroup> xs: array<f32, XW>;
var<workgroup> partial: array<vec4<f32>, 256>;
// Whether some word of x is still missing this poll round, and whether a wait gave up.
var<workgroup> late: u32;
var<workgroup> abandon: u32;

@compute @workgroup_size(256)
fn cs_main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let li = i32(local);
    let lane = li % LANES;
    let r = li / LANES;
    let g = i32(group.y);
    let w_count = i32(groups.y);
    let n = a_cols();
    let height = a_height();
    let blocks = (height + BR - 1) / BR;
    let omega = param(0);
    let iterations = i32(param(1));

    for (var j = li; j < XW; j += 256) {
        var v = 0.0;
        if (j < n) { v = c_texel(0, j / 4)[j % 4]; }
        xs[j] = v;
    }
    // This workgroup's texels of A, once, when it owns exactly one block.
    let cached = REG > 0 && w_count >= blocks;
    let my_row = min(g * BR + r, height - 1);
    var ra{m} = vec4<f32>(0.0);
    if (cached && lane + LANES * {m} < n) { ra{m} = a_texel(lane + LANES * {m}, my_row); }
    // And, for the thread that finishes row 4 y + lane of it, d and b of that row.
    var my_d = 0.0;
    var my_b = 0.0;
    if (cached && lane < 4 && 4 * my_row + lane < n) {
        my_d = step_scale(4 * my_row + lane, my_row, lane, omega);
        my_b = b_texel(0, my_row)[lane];
    }
    workgroupBarrier();

    for (var it = 0; it < iterations; it++) {
        let next = X0 + XW * ((it + 1) % 2);
        // Consecutive uses of a buffer alternate the tag; the first use of each differs from
        // the zeros it starts with.
        // (Buffer (it + 1) % 2 is used for the (it / 2)-th time.)
        let tag = select(0u, TAG, (it / 2) % 2 == 0);
        for (var blk = g; blk < blocks; blk += w_count) {
            let y = blk * BR + r;
            let row = min(y, height - 1);
            var acc = vec4<f32>(0.0);
            if (cached) {
                acc += ra{m} * xs[lane + LANES * {m}];
            } else {
                for (var j = lane; j < n; j += LANES) {
                    acc += a_texel(j, row) * xs[j];
                }
            }
            // The partial sums of a texel row meet in two steps (two barriers, not one per
            // halving): 16 threads add LANES / 16 each, then the finishing thread adds 16; the
            // lines naming p and q are written out (kernel.rs), so no loop is left here.
            partial[li] = acc;
            workgroupBarrier();
            if (lane < 16) {
                var sum = partial[li];
                sum += partial[li + 16 * ({p} + 1)];
                partial[li] = sum;
            }
            workgroupBarrier();
            if (lane < 4 && y < height) {
                // Thread `lane` finishes matrix row 4 y + lane.
                let i = 4 * y + lane;
                var v = 0.0;
                if (i < n) {
                    var d = my_d;
                    var bi = my_b;
                    if (!cached) {
                        d = step_scale(i, y, lane, omega);
                        bi = b_texel(0, y)[lane];
                    }
                    var w = vec4<f32>(0.0);
                    w += partial[li - lane + {q}];
                    v = max(xs[i] + (bi + w[lane]) * d, 0.0);
                    if (FRICTION) {
                        // Every thread of the contact finds its new normal impulse.
                        let normal = max(xs[4 * y] + (b_texel(0, y).x + w.x) * step_scale(4 * y, y, 0, omega), 0.0);
                        let limit = e_texel(0, y).x * normal;
                        v = select(clamp(xs[i] + (bi + w[lane]) * d, -limit, limit), normal, lane == 0);
                    }
                }
                atomicStore(&scratch[next + i], (bitcast<u32>(v) & ~TAG) | tag);
            }
            if (!cached) {
                workgroupBarrier(); // before the next block reuses `partial`
            }
        }
        // Poll until every word of the new x carries the tag, keeping each as it comes.
        var rounds = 0u;
        loop {
            workgroupBarrier();
            if (li == 0) {
                late = 0u;
                abandon = atomicLoad(&scratch[0]);
            }
            workgroupBarrier();
            for (var j = li; j < 4 * height; j += 256) {
                let word = atomicLoad(&scratch[next + j]);
                if ((word & TAG) == tag) {
                    xs[j] = bitcast<f32>(word & ~TAG);
                } else {
                    late = 1u;
                }
            }
            let someone_late = workgroupUniformLoad(&late) != 0u;
            let given_up = workgroupUniformLoad(&abandon) != 0u;
            if (!someone_late || given_up) {
                break;
            }
            rounds += 1u;
            if (rounds > SPIN_LIMIT) {
                break;
            }
        }
        // (Outside the loop: lavapipe dropped this store inside it.)
        if (rounds > SPIN_LIMIT && li == 0) {
            atomicStore(&scratch[0], 1u);
        }
        workgroupBarrier();
    }

    // Workgroup 0 writes the answer (every workgroup holds all of it); NaN if a wait gave up.
    let failed = atomicLoad(&scratch[0]) != 0u;
    for (var y = li; y < height && g == 0; y += 256) {
        var v = vec4<f32>(xs[4 * y], xs[4 * y + 1], xs[4 * y + 2], xs[4 * y + 3]);
        // (A run-time NaN: a constant one would be folded, and WGSL refuses NaN constants.)
        if (failed) { v = vec4<f32>(bitcast<f32>(0x7fc00000u + u32(min(n, 0)))); }
        textureStore(out_tex, vec2<i32>(0, y), v);
    }
}

// d of row i (matrix row i = component `lane` of texel row y): omega / A_ii, or with FRICTION
// omega times the given 1 / A_ii (0 on padding rows, which then keep their zero).
fn step_scale(i: i32, y: i32, lane: i32, omega: f32) -> f32 {
    if (FRICTION) {
        return omega * d_texel(0, y)[lane];
    }
    return omega / a_texel(i, y)[lane];
}
