// Projected Jacobi for the LCP, ALL iterations in ONE dispatch (WebGPU compute path):
//   x <- max(x + (b + A x) .* d, 0),  d = omega / diag(A)   (omega < 0, as in lcp.rs).
// Inputs: a (n x n), b (n x 1), c = x0 (n x 1); param(0) = omega, param(1) = iterations.
//
// The rows come in blocks of 4 texel rows (16 rows); workgroup g of W owns blocks g, g + W, ...
// Every workgroup keeps the whole current x in workgroup memory. Per iteration, thread
// (lane, ty) sums A's texel row ty of a block against x over the columns lane, lane + 64, ...;
// the 64 partial sums meet in a tree in workgroup memory, and the new x of the block goes to
// scratch storage (ping-pong between two halves). Then the W workgroups wait for each other at
// a barrier made of an atomic counter (a release/acquire pair of device-scope barriers around
// it), and every workgroup loads the new x. No pass, no submission, no read-back per iteration.
//
// Waiting on other workgroups needs them to run side by side, which WebGPU does not promise
// (GPUs do, for a few dozen workgroups; a software renderer may not): a wait gives up after
// SPIN_LIMIT poll rounds, and then the result is NaN, never a hang. With W = 1 nothing waits.

const XW: i32 = {XW};             // words of x kept in workgroup memory (>= 4 * texel rows)
const SPIN_LIMIT: u32 = 1000000u;

// scratch[0]: 1 once a wait gave up; scratch[1 + g]: the iterations workgroup g has finished
// (up to 256 workgroups); scratch[X0 ..]: x of even iterations, then of odd ones, XW words each.
@group(0) @binding(8) var<storage, read_write> scratch: array<atomic<u32>>;
const X0: i32 = 257;

var<workgroup> xs: array<f32, XW>;
var<workgroup> partial: array<array<vec4<f32>, 64>, 4>;
// Whether some workgroup is still late this poll round, and whether a wait gave up.
var<workgroup> late: u32;
var<workgroup> abandon: u32;

@compute @workgroup_size(64, 4)
fn cs_main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) local: vec3<u32>,
) {
    let lane = i32(local.x);
    let ty = i32(local.y);
    let li = ty * 64 + lane;
    let g = i32(group.y);
    let w_count = i32(groups.y);
    let n = a_cols();
    let height = a_height();
    let blocks = (height + 3) / 4;
    let omega = param(0);
    let iterations = i32(param(1));

    for (var j = li; j < XW; j += 256) {
        var v = 0.0;
        if (j < n) { v = c_texel(0, j / 4)[j % 4]; }
        xs[j] = v;
    }
    workgroupBarrier();

    for (var it = 0; it < iterations; it++) {
        let next = X0 + XW * ((it + 1) % 2);
        for (var blk = g; blk < blocks; blk += w_count) {
            let y = 4 * blk + ty;
            let row = min(y, height - 1);
            var acc = vec4<f32>(0.0);
            for (var j = lane; j < n; j += 64) {
                acc += a_texel(j, row) * xs[j];
            }
            partial[ty][lane] = acc;
            workgroupBarrier();
            for (var s = 32; s > 0; s >>= 1) {
                if (lane < s) { partial[ty][lane] += partial[ty][lane + s]; }
                workgroupBarrier();
            }
            if (lane < 4 && y < height) {
                // Thread `lane` finishes matrix row 4 y + lane.
                let i = 4 * y + lane;
                var v = 0.0;
                if (i < n) {
                    let d = omega / a_texel(i, y)[lane];
                    let w = partial[ty][0][lane];
                    v = max(xs[i] + (b_texel(0, y)[lane] + w) * d, 0.0);
                }
                atomicStore(&scratch[next + i], bitcast<u32>(v));
            }
            workgroupBarrier();
        }
        // This workgroup's part of the new x is in scratch: say so, wait until every other
        // workgroup has said so too (thread j watches workgroup j), then load all of it.
        storageBarrier();
        if (w_count > 1) {
            let done = u32(it + 1);
            if (li == 0) {
                atomicStore(&scratch[1 + g], done);
            }
            // Poll rounds in step across the workgroup (no thread loops on its own: a
            // divergent spin loop broke the enclosing loop on lavapipe): thread j < W looks
            // at workgroup j, and the whole workgroup leaves together once none is late.
            var rounds = 0u;
            loop {
                workgroupBarrier();
                if (li == 0) {
                    late = 0u;
                    abandon = atomicLoad(&scratch[0]);
                }
                workgroupBarrier();
                if (li < w_count && atomicLoad(&scratch[1 + li]) < done) {
                    late = 1u;
                }
                let someone_late = workgroupUniformLoad(&late) != 0u;
                let given_up = workgroupUniformLoad(&abandon) != 0u;
                if (!someone_late || given_up) {
                    break;
                }
                rounds += 1u;
                if (rounds > SPIN_LIMIT) {
                    if (li == 0) {
                        atomicStore(&scratch[0], 1u);
                    }
                    break;
                }
            }
        }
        workgroupBarrier();
        storageBarrier();
        for (var j = li; j < 4 * height; j += 256) {
            xs[j] = bitcast<f32>(atomicLoad(&scratch[next + j]));
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
