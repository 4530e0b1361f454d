"""The reference beside texla's native benchmark (src/bin/native_bench.rs), on the same GPU.

cuBLAS FP32 through PyTorch with TF32 off: TFLOPS of C = A B for each n, timed with CUDA events
after warm-up, median of several batches, checked against float64 on a sample of elements. Then
the dense LCP of the benchmark (n = 400, 800 projected-Jacobi iterations, the same iteration),
eager and captured as one CUDA graph. Then seed 004's NMF iteration at the thesis's shape (F 361
x 1024, k = 144; least squares, V then U, as texla's default) in FP32 on the GPU and on the CPU
(PyTorch's CPU kernels standing in for the thesis's MKL), ms per iteration.

Usage: python3 tools/bench_cublas.py [1024,2048,4096,8192] [--nmf-only]
"""
import statistics
import sys

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


if __name__ == "__main__":
    print(torch.cuda.get_device_name(), "torch", torch.__version__, flush=True)
    if "--nmf-only" not in sys.argv:
        sizes = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1024,2048,4096,8192").split(",")]
        matmul(sizes)
        lcp()
    nmf()
