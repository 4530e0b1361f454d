"""The reference beside texla's native benchmark (bench/native/), on the same GPU.

cuBLAS FP32 through PyTorch with TF32 off: TFLOPS of C = A B for each n, timed with CUDA events
after warm-up, median of several batches, checked against float64 on a sample of elements. Then
the dense LCP of the benchmark (n = 400, 800 projected-Jacobi iterations, the same iteration),
eager and captured as one CUDA graph. Then the thesis's NMF iteration at the thesis's shape (F 361
x 1024, k = 144; least squares, V then U, as texla's default) in FP32 on the GPU and on the CPU
(PyTorch's CPU kernels standing in for the thesis's MKL), ms per iteration.

With --figure3: the ShaderX2 article's Figure 3 in PyTorch (copy, add, multiply,
transposed multiply, CG and projected Jacobi at n = 1000, the same problems as texla's, on the
GPU and the CPU), beside native_bench --figure3's record when --texla FILE names it. With
--sgemv-sweep: Fujimoto's A x at every order (torch.mv, cuBLAS sgemv) beside native_bench
--mulvec-sweep's record (--texla FILE). Both write JSON into --out DIR (default .).

With --reductions: torch.sum(a) and torch.dot of n x n matrices (GB/s of input read), beside
native_bench --reductions.

With --precisions: the products at FP32 (TF32 off), TF32 and FP16 inputs with FP32 sums (reduced
precision reductions off), beside native_bench --float16's tensor-core path.

Usage: python3 bench/cublas.py [1024,2048,4096,8192] [--nmf-only | --products-only | --reductions
           | --precisions]
       python3 bench/cublas.py --figure3 [--texla native-figure3.json] [--n 1000] [--out DIR]
       python3 bench/cublas.py --sgemv-sweep [--texla native-mulvec-sweep.json]
           [--sweep-max 12800] [--sweep-dense-max 2048] [--out DIR]
"""
import json
import os
import statistics
import sys
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")


def timed(fn, per_batch, batches=7):
    """Median milliseconds per call of fn over `batches` batches of `per_batch` calls."""
    fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(batches):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(per_batch):
            fn()
        end.record()
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(end) / per_batch)
    return statistics.median(samples)


def matmul(sizes):
    for n in sizes:
        g = torch.Generator(device="cuda").manual_seed(n)
        a = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        b = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        c = torch.empty(n, n, device="cuda")
        per_batch = max(1, min(50, int(0.1 / (2 * n**3 / 40e12))))
        ms = timed(lambda: torch.mm(a, b, out=c), per_batch)
        rows = torch.randint(0, n, (256,), device="cuda", generator=g)
        cols = torch.randint(0, n, (256,), device="cuda", generator=g)
        exact = (a[rows].double() * b[:, cols].double().T).sum(1)
        scale = (a[rows].double().abs() * b[:, cols].double().abs().T).sum(1)
        worst = ((c[rows, cols].double() - exact).abs() / scale).max().item()
        print(f"n={n:5} cuBLAS FP32 (TF32 off) {ms:8.3f} ms {2 * n**3 / ms / 1e9:7.2f} TFLOPS"
              f"  max |err| / sum|ab| = {worst:.1e} (TF32 would be ~1e-4)", flush=True)


def precisions(sizes):
    """TFLOPS of C = A B in FP32, TF32 and FP16 (FP32 sums), and each one's largest error against
    float64 of its own inputs, max |C - C64| / sum |a b| over 256 sampled elements."""
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    for n in sizes:
        g = torch.Generator(device="cuda").manual_seed(n)
        a32 = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        b32 = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        rows = torch.randint(0, n, (256,), device="cuda", generator=g)
        cols = torch.randint(0, n, (256,), device="cuda", generator=g)
        for name, dtype, tf32 in [("FP32", torch.float32, False), ("TF32", torch.float32, True),
                                  ("FP16 in, FP32 sums", torch.float16, False)]:
            torch.backends.cuda.matmul.allow_tf32 = tf32
            a, b = a32.to(dtype), b32.to(dtype)
            c = torch.empty(n, n, device="cuda", dtype=dtype)
            per_batch = max(1, min(200, int(0.1 / (2 * n**3 / 200e12))))
            ms = timed(lambda: torch.mm(a, b, out=c), per_batch)
            exact = (a[rows].double() * b[:, cols].double().T).sum(1)
            scale = (a[rows].double().abs() * b[:, cols].double().abs().T).sum(1)
            worst = ((c[rows, cols].double() - exact).abs() / scale).max().item()
            print(f"n={n:5} cuBLAS {name:18} {ms:8.3f} ms {2 * n**3 / ms / 1e9:7.2f} TFLOPS"
                  f"  max |err| / sum|ab| = {worst:.1e}", flush=True)
    torch.backends.cuda.matmul.allow_tf32 = False


def reductions(sizes):
    for n in sizes:
        g = torch.Generator(device="cuda").manual_seed(n)
        a = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        b = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        per_batch = max(1, min(200, int(0.05 / (4 * n * n / 2e12))))
        for name, fn, inputs in [("sum", lambda: torch.sum(a), 1),
                                 ("dot", lambda: torch.dot(a.view(-1), b.view(-1)), 2),
                                 ("max |a|", lambda: torch.max(torch.abs(a)), 1)]:
            ms = timed(fn, per_batch)
            print(f"n={n:5} torch {name:8} {ms:8.4f} ms {inputs * 4 * n * n / ms / 1e6:8.1f} GB/s", flush=True)


def lcp(n=400, iterations=800, omega=-0.8):
    g = torch.Generator(device="cuda").manual_seed(1)
    off = (torch.rand(n, n, device="cuda", generator=g) * 2 - 1) / n
    a = torch.tril(off, -1)
    a = a + a.T
    a = a + torch.diag(1 + 2 * a.abs().sum(1))
    b = torch.rand(n, 1, device="cuda", generator=g) - 0.5
    d = omega / torch.diagonal(a).reshape(n, 1)
    x = torch.zeros(n, 1, device="cuda")

    def solve():
        x.zero_()
        for _ in range(iterations):
            x.copy_(torch.clamp(x + (b + a @ x) * d, min=0))

    eager = timed(solve, 1, 5)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        solve()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        solve()
    replay = timed(graph.replay, 1, 11)
    print(f"LCP n={n}, {iterations} iterations in PyTorch: eager {eager:.3f} ms, "
          f"one CUDA graph {replay:.3f} ms", flush=True)


def nmf(m=361, n=1024, k=144, eps=1e-9):
    for device in ["cuda", "cpu"]:
        g = torch.Generator(device=device).manual_seed(1)
        f = torch.rand(m, n, device=device, generator=g)
        u = torch.rand(m, k, device=device, generator=g) * 0.9 + 0.1
        v = torch.rand(n, k, device=device, generator=g) * 0.9 + 0.1

        def iteration():
            v.mul_(f.T @ u).div_(v @ (u.T @ u) + eps)
            u.mul_(f @ v).div_(u @ (v.T @ v) + eps)

        if device == "cuda":
            ms = timed(iteration, 50)
        else:
            import time
            iteration()
            runs = []
            for _ in range(5):
                t = time.perf_counter()
                for _ in range(10):
                    iteration()
                runs.append((time.perf_counter() - t) * 100)
            ms = statistics.median(runs)
        print(f"NMF {m}x{n}, k={k}, one least-squares iteration in PyTorch FP32 on the "
              f"{device.upper()} ({torch.get_num_threads()} threads): {ms:.3f} ms", flush=True)


# ---- The seeds' figures: the ShaderX2 article's Figure 3 and Fujimoto's A x at every order -------------


def mulberry32(seed, start, count):
    """Values start .. start+count-1 of texla's generator (src/reference.rs Rng, mulberry32)
    seeded with `seed`, uniform in [0, 1), as float64 on the CPU. The generator's state after k
    draws is seed + k * 0x6D2B79F5, so every value is computed at once; products of 32-bit
    numbers are taken in 16-bit halves to stay inside int64."""
    mask = 0xFFFFFFFF

    def mul(a, b):  # a * b mod 2^32, for 0 <= a, b < 2^32
        return (a * (b & 0xFFFF) + (((a * (b >> 16)) & 0xFFFF) << 16)) & mask

    k = torch.arange(start + 1, start + count + 1, dtype=torch.int64)
    t = (seed + mul(k & mask, torch.full_like(k, 0x6D2B79F5))) & mask
    t = mul(t ^ (t >> 15), t | 1)
    t = t ^ ((t + mul(t ^ (t >> 7), t | 61)) & mask)
    return (t ^ (t >> 14)).double() / 4294967296.0


def uniform(seed, start, count, lo, hi):
    """texla's Rng::matrix: lo + (hi - lo) u in float64, rounded to float32."""
    return (lo + (hi - lo) * mulberry32(seed, start, count)).float()


def lower_pairs(n, values):
    """The symmetric n x n matrix whose strict lower triangle, row by row, is `values`."""
    a = torch.zeros(n, n)
    i, j = torch.tril_indices(n, n, -1)
    a[i, j] = values
    a[j, i] = values
    return a


def random_spd(n, seed=1):
    """texla's problems::random_spd(n, seed), the same numbers: A, b (float32) and x."""
    m = n * (n - 1) // 2
    a = lower_pairs(n, uniform(seed, 0, m, -1.0, 1.0) * torch.tensor(1.0 / n**0.5, dtype=torch.float32))
    a += torch.diag(1.0 + a.abs().sum(1))
    x = uniform(seed, m, n, -1.0, 1.0).double()
    return a, (a.double() @ x).float(), x


def lcp_problem(n, seed=1):
    """texla's problems::lcp(n, seed): A, b (float32) and the known x."""
    m = n * (n - 1) // 2
    a = lower_pairs(n, uniform(seed, 0, m, -1.0, 1.0) / n)
    a += torch.diag(1.0 + 2.0 * a.abs().sum(1))
    free = torch.tensor([i % 3 != 0 for i in range(n)])
    x = torch.zeros(n, dtype=torch.float64)
    x[free] = 0.5 + mulberry32(seed, m, int(free.sum()))
    w = torch.zeros(n, dtype=torch.float64)
    w[~free] = 0.5 + mulberry32(seed, m + int(free.sum()), int((~free).sum()))
    return a, (w - a.double() @ x).float(), x


def product_matrices(n):
    """The page's productMatrices(n): uniform [-1, 1) from the generator seeded with n, each
    scaled to infinity norm 1."""
    a = uniform(n, 0, n * n, -1.0, 1.0).reshape(n, n)
    b = uniform(n, n * n, n * n, -1.0, 1.0).reshape(n, n)
    return a / a.abs().sum(1).max(), b / b.abs().sum(1).max()


def cg(a, b, tol, max_iter):
    """texla's CG (src/solver/cg.rs): from x = 0, two scalars read back per iteration."""
    b_norm = (b @ b).item() ** 0.5
    x, r = torch.zeros_like(b), b.clone()
    p, rr, it = r.clone(), (r @ r).item(), 0
    while rr**0.5 / b_norm > tol and it < max_iter:
        s = a @ p
        alpha = rr / (p @ s).item()
        x += alpha * p
        r -= alpha * s
        rr_new = (r @ r).item()
        it += 1
        p = r + (rr_new / rr) * p
        rr = rr_new
    return x, it


def projected_jacobi(a, b, omega, iterations):
    """texla's projected Jacobi (src/solver/lcp.rs): x = max(x + (b + A x) d, 0), d = omega / diag(A)."""
    d = omega / torch.diagonal(a)
    x = torch.zeros_like(b)
    for _ in range(iterations):
        x = torch.clamp(x + (b + a @ x) * d, min=0)
    return x


def figure3(n=1000, runs=5):
    """Rows {op, device, ms, minMs, iterations, error}: each op from the call to the end of the
    read-back (.cpu()), median of `runs` after a warm-up, on the GPU and the CPU."""
    a, b = product_matrices(n)
    spd_a, spd_b, spd_x = random_spd(n)
    lcp_a, lcp_b, lcp_x = lcp_problem(n)
    exact = {"copy": a.double(), "add": a.double() + b.double(), "multiply": a.double() @ b.double(),
             "transposed multiply": a.double().T @ b.double()}
    rows = []
    for device in ["cuda", "cpu"]:
        on = lambda t: t.to(device)
        A, B, SA, SB, LA, LB = map(on, (a, b, spd_a, spd_b, lcp_a, lcp_b))
        ops = [
            ("copy", lambda: (A.clone(), 0)),
            ("add", lambda: (A + B, 0)),
            ("multiply", lambda: (A @ B, 0)),
            ("transposed multiply", lambda: (A.T @ B, 0)),
            ("CG", lambda: cg(SA, SB, 1e-5, n)),
            ("projected Jacobi", lambda: (projected_jacobi(LA, LB, -0.8, 2 * n), 2 * n)),
        ]
        if device == "cuda":
            # The loop captured as one CUDA graph: PyTorch's counterpart of texla's one dispatch.
            x_graph = torch.zeros_like(LB)
            d = -0.8 / torch.diagonal(LA)

            def loop():
                x_graph.zero_()
                for _ in range(2 * n):
                    x_graph.copy_(torch.clamp(x_graph + (LB + LA @ x_graph) * d, min=0))

            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                loop()
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                loop()

            def replay():
                graph.replay()
                return x_graph, 2 * n

            ops.append(("projected Jacobi, one CUDA graph", replay))
        for op, run in ops:
            samples, result = [], None
            for r in range(runs + 1):
                if device == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                out, iterations = run()
                result = out.cpu()
                if r > 0:  # the first run warms up
                    samples.append((time.perf_counter() - t0) * 1e3)
            want = {"CG": spd_x}.get(op, lcp_x if op.startswith("projected") else exact.get(op))
            error = ((result.double() - want).abs().max() / want.abs().max()).item()
            rows.append({"op": op, "device": device, "ms": statistics.median(samples), "minMs": min(samples),
                         "iterations": iterations, "error": error})
            print(f"  {device:4} {op:34} {rows[-1]['ms']:10.3f} ms (fastest {min(samples):.3f})"
                  f"{f', {iterations} iterations' if iterations else ''}, error {error:.1e}", flush=True)
    return rows


def figure3_table(rows, texla):
    """The comparison: texla (native_bench's record, or None) beside PyTorch GPU and CPU."""
    torch_ms = {(r["op"], r["device"]): r["ms"] for r in rows}
    texla_ms = {r["op"]: r["ms"] for r in (texla or {}).get("rows", [])}
    pairs = [(op, op) for op in ["copy", "add", "multiply", "transposed multiply", "CG", "projected Jacobi"]]
    pairs.append(("projected Jacobi, one dispatch", "projected Jacobi, one CUDA graph"))
    print(f"\nThe ShaderX2 article's Figure 3, n = {texla['n'] if texla else '?'}: ms from the call to the end of the "
          "read-back (medians); ratios of times")
    print(f"{'operation (texla / PyTorch)':58} {'texla':>10} {'torch GPU':>10} {'torch CPU':>10} "
          f"{'texla/GPU':>10} {'CPU/texla':>10}")
    for ours, theirs in pairs:
        t, g, c = texla_ms.get(ours), torch_ms.get((theirs, "cuda")), torch_ms.get((theirs, "cpu"))
        cell = lambda v: f"{v:10.3f}" if v is not None else f"{'-':>10}"
        ratio = lambda x, y: f"{x / y:9.2f}x" if x is not None and y else f"{'-':>10}"
        name = ours if ours == theirs else f"{ours} / {theirs}"
        print(f"{name:58} {cell(t)} {cell(g)} {cell(c)} {ratio(t, g)} {ratio(c, t)}")


def sweep_orders(dense_max=2048, max_order=12800):
    """native_bench's orders (mulvec_sweep.rs): every order 16..dense_max, then c-8..c+8
    around each multiple c of 256 above it, at most max_order."""
    orders = list(range(16, min(dense_max, max_order) + 1))
    c = (dense_max // 256 + 1) * 256
    while c - 8 <= max_order:
        orders += [n for n in range(c - 8, min(c + 8, max_order) + 1) if n > dense_max]
        c += 256
    return orders


def sgemv_sweep(orders):
    """GB/s (4 n^2 bytes of A per product) of torch.mv (cuBLAS sgemv) for each order, A and x
    resident: CUDA events around products back to back in 5 batches of about 2 ms, median."""
    gbs = []
    g = torch.Generator(device="cuda").manual_seed(3)
    for n in orders:
        a = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        x = torch.rand(n, device="cuda", generator=g) * 2 - 1
        y = torch.empty(n, device="cuda")
        torch.mv(a, x, out=y)
        trial = timed(lambda: torch.mv(a, x, out=y), 4, 1)
        per_batch = max(4, min(400, int(2.0 / max(trial, 1e-6)) + 1))
        ms = timed(lambda: torch.mv(a, x, out=y), per_batch, 5)
        gbs.append(4 * n * n / (ms * 1e-3) / 1e9)
    return gbs


BANDS = [(16, 63), (64, 255), (256, 1023), (1024, 2048), (2049, 4096), (4097, 8192), (8193, 12800)]


def sweep_report(name, orders, gbs):
    """Per band: min/median/max GB/s of all orders, of multiples of 16, of the others; then the
    largest dips below the mean of the two neighbouring orders."""
    print(f"\n{name}: GB/s min / median / max per band")
    print(f"{'orders':>12} {'count':>6}  {'all':>26}  {'multiples of 16':>26}  {'other orders':>26}")
    stats = lambda v: f"{min(v):8.2f} {statistics.median(v):8.2f} {max(v):8.2f}" if v else "-"
    bands = []
    for lo, hi in BANDS:
        band = [(n, g) for n, g in zip(orders, gbs) if lo <= n <= hi]
        if not band:
            continue
        pick = lambda keep: [g for n, g in band if keep(n)]
        allv, m16, other = pick(lambda n: True), pick(lambda n: n % 16 == 0), pick(lambda n: n % 16)
        print(f"{f'{lo}-{hi}':>12} {len(band):6}  {stats(allv):>26}  {stats(m16):>26}  {stats(other):>26}")
        bands.append({"lo": lo, "hi": hi, "median": statistics.median(allv),
                      "medianMultiplesOf16": statistics.median(m16) if m16 else None,
                      "medianOthers": statistics.median(other) if other else None})
    at = dict(zip(orders, gbs))
    dips = sorted(((g / ((at[n - 1] + at[n + 1]) / 2), n) for n, g in zip(orders, gbs)
                   if n - 1 in at and n + 1 in at))
    print("largest dips below the neighbours' mean: " +
          ", ".join(f"n = {n} {100 * (1 - r):.1f}%" for r, n in dips[:8]))
    return {"bands": bands, "dips": [{"n": n, "belowNeighbours": 1 - r} for r, n in dips[:8]]}


def figures(args):
    value = lambda flag, default: args[args.index(flag) + 1] if flag in args else default
    out = value("--out", ".")
    texla_file = value("--texla", None)
    texla = None
    if texla_file and os.path.exists(texla_file):
        with open(texla_file) as f:
            texla = json.load(f)
    elif texla_file:
        print(f"no {texla_file}: PyTorch only", flush=True)
    print(f"CPU threads: {torch.get_num_threads()}", flush=True)
    if "--figure3" in args:
        n = int(value("--n", texla["n"] if texla else 1000))
        print(f"\nThe ShaderX2 article's Figure 3 in PyTorch at n = {n} (TF32 off):", flush=True)
        rows = figure3(n)
        figure3_table(rows, texla)
        with open(os.path.join(out, "torch-figure3.json"), "w") as f:
            json.dump({"n": n, "device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "cpuThreads": torch.get_num_threads(), "rows": rows}, f, indent=1)
    if "--sgemv-sweep" in args:
        orders = texla["orders"] if texla else sweep_orders(int(value("--sweep-dense-max", 2048)),
                                                            int(value("--sweep-max", 12800)))
        t0 = time.perf_counter()
        gbs = sgemv_sweep(orders)
        print(f"\ncuBLAS sgemv (torch.mv) at {len(orders)} orders in {time.perf_counter() - t0:.1f} s", flush=True)
        summary = {"cublas": sweep_report("cuBLAS sgemv (torch.mv)", orders, gbs)}
        if texla:
            summary["texla"] = sweep_report(f"texla A x ({texla['path']})", orders, texla["gbs"])
            print("\ntexla / cuBLAS GB/s, median per band: " + ", ".join(
                f"{t['lo']}-{t['hi']} {t['median'] / c['median']:.2f}"
                for t, c in zip(summary["texla"]["bands"], summary["cublas"]["bands"])))
            print(f"{'n':>6} {'texla GB/s':>11} {'cuBLAS GB/s':>12} {'texla/cuBLAS':>13}")
            for n, t, c in zip(orders, texla["gbs"], gbs):
                if n & (n - 1) == 0 or (n + 1) & n == 0 or (n - 1) & (n - 2) == 0 or n % 1024 in (0, 8, 1016):
                    print(f"{n:6} {t:11.2f} {c:12.2f} {t / c:12.2f}x")
        with open(os.path.join(out, "torch-sgemv-sweep.json"), "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "orders": orders,
                       "gbs": [round(g, 4) for g in gbs], "summary": summary}, f)


if __name__ == "__main__":
    print(torch.cuda.get_device_name(), "torch", torch.__version__, flush=True)
    if "--figure3" in sys.argv or "--sgemv-sweep" in sys.argv:
        figures(sys.argv[1:])  # the seeds' figures, then nothing else
        sys.exit(0)
    if "--nmf-only" not in sys.argv:
        sizes = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1024,2048,4096,8192").split(",")]
        if "--reductions" in sys.argv:
            reductions(sizes)
            sys.exit(0)
        if "--precisions" in sys.argv:
            precisions(sizes)
            sys.exit(0)
        matmul(sizes)
        if "--products-only" in sys.argv:
            sys.exit(0)
        lcp()
    nmf()
