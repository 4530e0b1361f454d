//! The command line of native_bench (see main.rs for the default run and the README for the
//! figures' modes).

use texla::physics::NarrowPhase;

/// What to run, and how.
pub struct Options {
    /// Matrix orders of the products table.
    pub sizes: Vec<usize>,
    /// Timed batches per measurement (the median is reported).
    pub batches: usize,
    /// The products and A x tables.
    pub products: bool,
    /// The dense LCP of the wall's size.
    pub lcp: bool,
    /// Frames of the wall.
    pub wall: bool,
    /// `--walls`: the wall's scenes, in walls of 60 cubes (1 and 10; 1000 is 60,000 cubes).
    pub walls: Vec<usize>,
    /// `--wall-frames`: frames timed in every wall case (else each case's own).
    pub wall_frames: Option<usize>,
    /// `--wall-copies`: several walls asleep are copies of one wall that fell asleep.
    pub wall_copies: bool,
    /// `--wall-cpu`: the wall's awake scenes only, for the parts of their frames.
    pub wall_cpu: bool,
    /// `--wall-solver NAME`: the awake scenes' solver, as the page names it (`soft`,
    /// `gauss-seidel`, `nesterov`, `jacobi`); else the default.
    pub wall_solver: Option<String>,
    /// `--narrow-phase cpu|gpu|auto`: where the wall's frames find their contacts (`auto`, the
    /// default, as the page does).
    pub narrow_phase: NarrowPhase,
    /// The thesis's NMF.
    pub nmf: bool,
    /// Fewer product variants.
    pub quick: bool,
    /// `--paths TEXT`: only the products whose name contains TEXT, only without run-time checks.
    pub paths: Option<String>,
    /// `--kernel-sweep`: the products' and A x's kernel choice at every order of `sizes`
    /// (`kernel_sweep.rs`), paths in alternating turns; only this runs when named.
    pub kernel_sweep: bool,
    /// `--accuracy`: the default product's speed and error against float64 at each of `sizes`
    /// (`accuracy.rs`); only the figures' modes run when named.
    pub accuracy: bool,
    /// `--float16`: float16 storage against float32, A x and the product at each of `sizes`
    /// (`float16.rs`); only the figures' modes run when named.
    pub float16: bool,
    /// `--matvec-kernels`: shapes of the compute A x kernel in turns (`matvec_kernels.rs`).
    pub matvec_kernels: bool,
    /// `--overhead`: a call's fixed cost (CPU part, round trip) and what history does to speed
    /// (`overhead.rs`); only the figures' modes run when named.
    pub overhead: bool,
    /// `--reductions`: sum, dot and the largest |element| by every reduction kernel at each of
    /// `sizes` (`reductions.rs`); only the figures' modes run when named.
    pub reductions: bool,
    /// `--memory-hints performance|usage|MIN-MAX` (MiB): wgpu's memory hints for the device.
    pub memory_hints: wgpu::MemoryHints,
    /// `--no-checks`: the kernel sweep without wgpu's run-time checks in the shaders.
    pub no_checks: bool,
    /// `--checks`: the kernel sweep with wgpu's run-time checks in every shader (by default the
    /// library's own choice: none in the tiled product's).
    pub checks: bool,
    /// `--rounds`: turns of each path per order in the kernel sweep (the median is reported).
    pub rounds: usize,
    /// Order of the dense LCP.
    pub lcp_n: usize,
    /// Projected-Jacobi iterations of the dense LCP.
    pub lcp_iterations: usize,
    /// `--instructions`: the thesis's Table 5 instruction counts (no GPU needed).
    pub instructions: bool,
    /// `--figure3`: the ShaderX2 article's Figure 3.
    pub figure3: bool,
    /// `--figure3-n`: its matrix order (1000 as in the seed).
    pub figure3_n: usize,
    /// `--figure3-runs`: timed runs per operation (the median is reported).
    pub figure3_runs: usize,
    /// `--mulvec-sweep`: Fujimoto's A x at every order.
    pub mulvec_sweep: bool,
    /// `--sweep-max`: the largest order of the sweep (12800 as in the seed).
    pub sweep_max: usize,
    /// `--sweep-dense-max`: the sweep takes every order up to this one (2048), windows above.
    pub sweep_dense_max: usize,
    /// `--float-float`: float-float against float32 (`float_float.rs`).
    pub float_float: bool,
    /// `--ff-sizes`: orders of its products (256, 512, 1024, 2048).
    pub ff_sizes: Vec<usize>,
    /// `--ff-mv-sizes`: orders of its A x (1024, 4096, 8192).
    pub ff_mv_sizes: Vec<usize>,
    /// `--ff-dot-n`: elements of its dot product (2^20).
    pub ff_dot_n: usize,
    /// `--out`: the folder the figures' JSON records go to.
    pub out: String,
    /// `--linear`: the SIMD-optimization paper's measures, Table 3 and Table 4 (`linear.rs`).
    pub linear: bool,
    /// `--linear-grid nx,ny,nz`: the EBJ grid (40,80,80 as in the seed).
    pub linear_grid: (usize, usize, usize),
    /// `--linear-cols`: vectors per `gpu.linear` sweep (4096).
    pub linear_cols: usize,
    /// `--linear-max-iter`: the most EBJ and Gauss-Seidel iterations (20000).
    pub linear_max_iter: usize,
    /// `--wave-side`: the wave's side (512 as in the seed).
    pub wave_side: usize,
}

impl Options {
    /// Whether only the figures' modes run (any of them named on the command line).
    pub fn figures_only(&self) -> bool {
        self.instructions
            || self.figure3
            || self.mulvec_sweep
            || self.float_float
            || self.linear
            || self.kernel_sweep
            || self.accuracy
            || self.float16
            || self.matvec_kernels
            || self.overhead
            || self.reductions
    }
}

/// The options of this run, from the command line; unknown options are reported and ignored.
pub fn options() -> Options {
    let mut o = Options {
        sizes: vec![1024, 2048, 4096, 8192],
        batches: 5,
        products: true,
        lcp: true,
        wall: true,
        walls: vec![1, 10],
        wall_frames: None,
        wall_copies: false,
        wall_cpu: false,
        wall_solver: None,
        narrow_phase: NarrowPhase::Auto,
        nmf: true,
        quick: false,
        paths: None,
        kernel_sweep: false,
        accuracy: false,
        float16: false,
        matvec_kernels: false,
        overhead: false,
        reductions: false,
        rounds: 3,
        no_checks: false,
        checks: false,
        memory_hints: wgpu::MemoryHints::default(),
        lcp_n: 400,
        lcp_iterations: 800,
        instructions: false,
        figure3: false,
        figure3_n: 1000,
        figure3_runs: 5,
        mulvec_sweep: false,
        sweep_max: 12800,
        sweep_dense_max: 2048,
        float_float: false,
        ff_sizes: vec![256, 512, 1024, 2048],
        ff_mv_sizes: vec![1024, 4096, 8192],
        ff_dot_n: 1 << 20,
        out: ".".into(),
        linear: false,
        linear_grid: (40, 80, 80),
        linear_cols: 4096,
        linear_max_iter: 20_000,
        wave_side: 512,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize| args.get(i + 1).cloned().unwrap_or_default();
        let number = |i: usize, default: usize| value(i).parse().unwrap_or(default);
        let list = |i: usize| -> Vec<usize> {
            value(i)
                .split(',')
                .filter_map(|s| s.parse().ok())
                .filter(|&n| n > 0)
                .collect()
        };
        match args[i].as_str() {
            "--sizes" => {
                o.sizes = value(i).split(',').filter_map(|s| s.parse().ok()).collect();
                i += 1;
            }
            "--paths" => {
                o.paths = Some(value(i));
                i += 1;
            }
            "--batches" => {
                o.batches = number(i, 5);
                i += 1;
            }
            "--memory-hints" => {
                let v = value(i);
                const MB: u64 = 1 << 20;
                o.memory_hints = match v.as_str() {
                    "performance" => wgpu::MemoryHints::Performance,
                    "usage" => wgpu::MemoryHints::MemoryUsage,
                    range => {
                        let mut ends = range.split('-').filter_map(|s| s.parse::<u64>().ok());
                        let lo = ends.next().unwrap_or(128);
                        let hi = ends.next().unwrap_or(lo);
                        wgpu::MemoryHints::Manual {
                            suballocated_device_memory_block_size: lo * MB..hi * MB,
                        }
                    }
                };
                i += 1;
            }
            "--rounds" => {
                o.rounds = number(i, 3).max(1);
                i += 1;
            }
            "--lcp-n" => {
                o.lcp_n = number(i, 400);
                i += 1;
            }
            "--lcp-iterations" => {
                o.lcp_iterations = number(i, 800);
                i += 1;
            }
            "--figure3-n" => {
                o.figure3_n = number(i, 1000);
                i += 1;
            }
            "--figure3-runs" => {
                o.figure3_runs = number(i, 5).max(1);
                i += 1;
            }
            "--sweep-max" => {
                o.sweep_max = number(i, 12800).max(16);
                i += 1;
            }
            "--sweep-dense-max" => {
                o.sweep_dense_max = number(i, 2048).max(16);
                i += 1;
            }
            "--ff-sizes" => {
                o.ff_sizes = list(i);
                i += 1;
            }
            "--ff-mv-sizes" => {
                o.ff_mv_sizes = list(i);
                i += 1;
            }
            "--ff-dot-n" => {
                o.ff_dot_n = number(i, 1 << 20).max(1);
                i += 1;
            }
            "--linear-grid" => {
                if let [nx, ny, nz] = list(i)[..] {
                    o.linear_grid = (nx, ny, nz);
                }
                i += 1;
            }
            "--linear-cols" => {
                o.linear_cols = number(i, 4096).max(1);
                i += 1;
            }
            "--linear-max-iter" => {
                o.linear_max_iter = number(i, 20_000).max(1);
                i += 1;
            }
            "--wave-side" => {
                o.wave_side = number(i, 512).max(32);
                i += 1;
            }
            "--walls" => {
                o.walls = list(i).into_iter().filter(|&w| w > 0).collect();
                i += 1;
            }
            "--wall-solver" => {
                o.wall_solver = Some(value(i));
                i += 1;
            }
            "--narrow-phase" => {
                o.narrow_phase = match value(i).as_str() {
                    "cpu" => NarrowPhase::Cpu,
                    "gpu" => NarrowPhase::Gpu,
                    "auto" => NarrowPhase::Auto,
                    other => {
                        eprintln!("--narrow-phase is cpu, gpu or auto, not {other}: auto");
                        NarrowPhase::Auto
                    }
                };
                i += 1;
            }
            "--wall-frames" => {
                o.wall_frames = Some(number(i, 20).max(1));
                i += 1;
            }
            "--out" => {
                o.out = value(i);
                i += 1;
            }
            "--no-lcp" => o.lcp = false,
            "--no-wall" => o.wall = false,
            "--wall-copies" => o.wall_copies = true,
            "--wall-cpu" => o.wall_cpu = true,
            "--no-nmf" => o.nmf = false,
            "--no-products" => o.products = false,
            "--quick" => o.quick = true,
            "--instructions" => o.instructions = true,
            "--figure3" => o.figure3 = true,
            "--mulvec-sweep" => o.mulvec_sweep = true,
            "--float-float" => o.float_float = true,
            "--linear" => o.linear = true,
            "--kernel-sweep" => o.kernel_sweep = true,
            "--accuracy" => o.accuracy = true,
            "--float16" => o.float16 = true,
            "--matvec-kernels" => o.matvec_kernels = true,
            "--overhead" => o.overhead = true,
            "--reductions" => o.reductions = true,
            "--no-checks" => o.no_checks = true,
            "--checks" => o.checks = true,
            other => eprintln!("ignoring unknown option {other}"),
        }
        i += 1;
    }
    o
}
