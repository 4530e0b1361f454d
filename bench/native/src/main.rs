//! Native benchmark: texla's own kernels and WebGPU backend (wgpu on Vulkan), timed on a real GPU.
//!
//! Build with `cargo build --release -p native_bench`. Prints, for matrix
//! products at each n (default 1024, 2048, 4096, 8192): TFLOPS of the teaching fragment kernel,
//! the fast fragment kernel and the compute path (several block shapes), each checked against
//! float64 on a sample of elements (`products.rs`); then matrix-vector products (`matvec.rs`);
//! then the dense LCP (n = 400, 800 projected-Jacobi iterations) in one dispatch, beside the
//! per-iteration paths (`lcp.rs`); then frames of the collapsing wall as the page runs them
//! (`wall.rs`: the default solver for 60 and 600 cubes, or the scenes of `--walls 1,10,100`,
//! awake, asleep and hit by the ball; the seed's preset in both layouts), beside the float64
//! solve of the same LCP; then the thesis's NMF at its shape (`nmf.rs`).
//!
//! Timing (`common.rs`): every operation runs once to build its pipeline, for half a second to
//! raise the GPU's clock, then in batches of back-to-back runs between two waits for the GPU
//! (`finish` polls the device until the queue is idle); the median batch is reported.
//! Options: `--sizes 1024,4096`, `--batches 5`, `--no-lcp`, `--no-products`, `--no-wall`,
//! `--no-nmf`, `--quick` (fewer variants), `--paths TEXT` (only the products whose name
//! contains TEXT, without run-time checks), `--lcp-n 400`,
//! `--lcp-iterations 800`, `--walls 1,10,100` (the wall's scenes), `--wall-frames 20` (frames
//! timed in every wall case), `--wall-copies` (several walls asleep as copies of one),
//! `--wall-cpu` (the wall's awake scenes only; every wall line is followed by its frame's parts),
//! `--wall-solver soft` (the awake scenes' solver, as the page names it), `--narrow-phase gpu`
//! (where the awake scenes find their contacts: `cpu`, `gpu` or `auto`, the default).
//!
//! The seeds' figures (only these run when one is named; README, "Native benchmark"):
//! `--instructions` (the thesis's Table 5 instruction counts, no GPU; `instructions.rs`),
//! `--figure3` (the ShaderX2 article's Figure 3 at n = 1000; `figure3.rs`) and `--mulvec-sweep` (Fujimoto's
//! A x at orders 16 to 12800; `mulvec_sweep.rs`), each writing a JSON record into `--out DIR`,
//! and `--float-float` (float-float against float32: products, A x and dot; `float_float.rs`,
//! sizes by `--ff-sizes 256,512`, `--ff-mv-sizes 1024`, `--ff-dot-n 1048576`; prints a table),
//! and `--linear` (the SIMD-optimization paper's measures, Table 3 and Table 4: `linear.rs`; `--linear-grid 40,80,80`,
//! `--linear-cols 4096`, `--linear-max-iter 20000`, `--wave-side 512`; writes linear.json),
//! and `--kernel-sweep` (the product's and A x's kernel choice at every order of `--sizes`,
//! paths in alternating `--rounds`; `kernel_sweep.rs`, writes kernel-sweep.json),
//! and `--accuracy` (the default product's speed and error against float64 at `--sizes`;
//! `accuracy.rs`), and `--float16` (A x and the product with float16 storage against float32 at
//! `--sizes`, in turns; `float16.rs`), and `--matvec-kernels` (shapes of the compute A x kernel
//! in turns; `matvec_kernels.rs`), and `--overhead` (a call's fixed cost, CPU part and round
//! trip, and what a process's history does to speed; `overhead.rs`), and `--reductions` (sum,
//! dot and largest |element| by fragment passes and by compute passes, in turns at `--sizes`;
//! `reductions.rs`).

mod accuracy;
mod common;
mod figure3;
mod float16;
mod float_float;
mod instructions;
mod kernel_sweep;
mod lcp;
mod linear;
mod matvec;
mod matvec_kernels;
mod mulvec_sweep;
mod nmf;
mod options;
mod overhead;
mod products;
mod reductions;
mod wall;

use texla::backend::WebGpu;
use texla::gpu::Gpu;

use common::block_on;
use options::options;

fn main() {
    let o = options();
    if o.instructions {
        // Needs no GPU: before the adapter is opened.
        if let Err(e) = instructions::instructions(&o.out) {
            eprintln!("instruction counts failed: {e}");
            std::process::exit(1);
        }
        if !(o.figure3 || o.mulvec_sweep || o.float_float || o.linear) {
            return;
        }
    }
    let backend = match block_on(WebGpu::create_with(o.memory_hints.clone())) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let gpu = Gpu::new(backend, None);
    let caps = gpu.capabilities().clone();
    println!(
        "adapter: {}; max texture {}; render targets {}; workgroup memory {} bytes; memory hints {:?}",
        caps.adapter,
        caps.max_texture_size,
        caps.max_render_targets,
        caps.max_workgroup_storage,
        o.memory_hints
    );
    let result = (|| {
        if o.figures_only() {
            if o.figure3 {
                figure3::figure3(&gpu, &o)?;
            }
            if o.mulvec_sweep {
                mulvec_sweep::sweep(&gpu, &o)?;
            }
            if o.float_float {
                float_float::float_float(&gpu, &o)?;
            }
            if o.linear {
                linear::linear(&gpu, &o)?;
            }
            if o.kernel_sweep {
                kernel_sweep::kernel_sweep(&gpu, &o)?;
            }
            if o.accuracy {
                accuracy::accuracy(&gpu, &o)?;
            }
            if o.float16 {
                float16::float16(&gpu, &o)?;
            }
            if o.matvec_kernels {
                matvec_kernels::matvec_kernels(&gpu, &o)?;
            }
            if o.overhead {
                overhead::overhead(&gpu, &o)?;
            }
            if o.reductions {
                reductions::reductions(&gpu, &o)?;
            }
            return Ok(());
        }
        if o.lcp {
            lcp::lcp(&gpu, &o)?;
        }
        if o.wall {
            wall::wall(&gpu, &o)?;
        }
        if o.nmf {
            nmf::nmf(&gpu, 200)?;
        }
        if o.products {
            matvec::matvec(&gpu, &o)?;
            products::products(&gpu, &o)?;
        }
        Ok::<_, texla::error::Error>(())
    })();
    if let Err(e) = result {
        eprintln!("benchmark failed: {e}");
        std::process::exit(1);
    }
}
