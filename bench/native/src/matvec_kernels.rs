//! `--matvec-kernels`: shapes of the compute A x kernel, in turns at each of `--sizes`, A in
//! float32 and float16: `lanes` invocations share a texel row's columns, `ty` of them stacked,
//! each summing `rpt` texel rows, `unroll` column quads a loop step; beside the default
//! `mul_vec` and an empty dispatch of the default's grid (the floor of a call).

use std::fmt::Write;

use texla::error::Result;
use texla::gpu::{float16 as rounded, Format, Gpu};
use texla::kernels::{Compute, Kernel, Program};
use texla::layout::Layout;
use texla::matrix::Matrix;
use texla::reference::Rng;

use crate::common::{block_on, median, time, webgpu};
use crate::matvec::check_matvec;
use crate::options::Options;

/// A path's name and its call.
type Path<'a> = (String, Box<dyn Fn() -> Result<Matrix> + 'a>);

/// The kernel's WGSL for one shape.
fn source(lanes: usize, ty: usize, rpt: usize, unroll: usize) -> String {
    let rows = ty * rpt;
    let mut s = String::new();
    let w = &mut s;
    writeln!(
        w,
        "var<workgroup> partial: array<array<vec4<f32>, {lanes}>, {rows}>;"
    )
    .unwrap();
    writeln!(w, "@compute @workgroup_size({lanes}, {ty})").unwrap();
    writeln!(w, "fn cs_main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {{").unwrap();
    writeln!(
        w,
        "let lane = i32(local.x); let ty = i32(local.y); let n = a_cols();"
    )
    .unwrap();
    writeln!(
        w,
        "let y0 = i32(group.y) * {rows} + {rpt} * ty; let last = a_height() - 1;"
    )
    .unwrap();
    for i in 0..rpt {
        writeln!(
            w,
            "let r{i} = min(y0 + {i}, last); var acc{i} = vec4<f32>(0.0);"
        )
        .unwrap();
    }
    writeln!(w, "let quads = n / 4; var q = lane;").unwrap();
    let step = |w: &mut String, u: usize| {
        writeln!(
            w,
            "let x{u} = b_texel(0, q + {}); let j{u} = 4 * (q + {});",
            u * lanes,
            u * lanes
        )
        .unwrap();
        for i in 0..rpt {
            writeln!(w, "acc{i} += a_texel(j{u}, r{i}) * x{u}.x + a_texel(j{u} + 1, r{i}) * x{u}.y + a_texel(j{u} + 2, r{i}) * x{u}.z + a_texel(j{u} + 3, r{i}) * x{u}.w;").unwrap();
        }
    };
    if unroll > 1 {
        writeln!(
            w,
            "for (; q + {} < quads; q += {}) {{",
            (unroll - 1) * lanes,
            unroll * lanes
        )
        .unwrap();
        for u in 0..unroll {
            step(w, u);
        }
        writeln!(w, "}}").unwrap();
    }
    writeln!(w, "for (; q < quads; q += {lanes}) {{").unwrap();
    step(w, 0);
    writeln!(w, "}}").unwrap();
    writeln!(
        w,
        "if (lane < n % 4) {{ let x = b_texel(0, quads)[lane]; let j = 4 * quads + lane;"
    )
    .unwrap();
    for i in 0..rpt {
        writeln!(w, "acc{i} += a_texel(j, r{i}) * x;").unwrap();
    }
    writeln!(w, "}}").unwrap();
    for i in 0..rpt {
        writeln!(w, "partial[{rpt} * ty + {i}][lane] = acc{i};").unwrap();
    }
    writeln!(w, "workgroupBarrier();").unwrap();
    writeln!(
        w,
        "for (var s = {}; s > 0; s >>= 1) {{ if (lane < s) {{",
        lanes / 2
    )
    .unwrap();
    for i in 0..rpt {
        writeln!(
            w,
            "partial[{rpt} * ty + {i}][lane] += partial[{rpt} * ty + {i}][lane + s];"
        )
        .unwrap();
    }
    writeln!(w, "}} workgroupBarrier(); }}").unwrap();
    writeln!(w, "let height = (out_rows() + 3) / 4;").unwrap();
    writeln!(w, "if (lane < {rpt} && y0 + lane < height) {{ textureStore(out_tex, vec2<i32>(0, y0 + lane), partial[{rpt} * ty + lane][0]); }}").unwrap();
    writeln!(w, "}}").unwrap();
    s
}

fn kernel(name: String, wgsl: String, rows: usize) -> Kernel {
    Kernel {
        name: name.into(),
        inputs: &["a", "b"],
        wgsl: std::borrow::Cow::Borrowed(Box::leak(wgsl.into_boxed_str())),
        glsl: "".into(),
        outputs: 1,
        compute: Some(Compute {
            per_group: (1, rows),
            scratch_words: 0,
            unchecked: false,
        }),
    }
}

pub fn matvec_kernels(gpu: &Gpu, o: &Options) -> Result<()> {
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::unchecked());
    let shapes: &[(usize, usize, usize, usize)] = &[
        (64, 4, 2, 1),
        (64, 4, 2, 2),
        (64, 2, 2, 2),
        (128, 2, 2, 1),
        (128, 2, 2, 2),
        (128, 1, 2, 2),
        (256, 1, 2, 1),
        (256, 1, 2, 2),
        (256, 1, 1, 2),
        (256, 1, 1, 4),
        (128, 1, 1, 4),
        (64, 4, 1, 4),
    ];
    let mut kernels: Vec<(String, Kernel)> = shapes
        .iter()
        .map(|&(l, t, r, u)| {
            let name = format!("{l}x{t} r{r} u{u}");
            (name.clone(), kernel(name, source(l, t, r, u), t * r))
        })
        .collect();
    let empty = "@compute @workgroup_size(64, 4)\nfn cs_main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {\nlet y = i32(group.y) * 8 + i32(local.y) * 2 + i32(local.x);\nif (local.x < 2u && y < (out_rows() + 3) / 4) { textureStore(out_tex, vec2<i32>(0, y), vec4<f32>(0.0)); }\n}\n";
    kernels.push((
        "empty (64x4, 8 rows)".into(),
        kernel("empty".into(), empty.into(), 8),
    ));
    println!(
        "A x kernels, no run-time checks, median of {} rounds in turns; GB/s = 4 n^2 / time (float16 reads half)",
        o.batches
    );
    let max_side = gpu.capabilities().max_texture_size;
    for &n in &o.sizes {
        for format in [Format::F32, Format::F16] {
            let mut rng = Rng::new(n as u32 + 7);
            let a = rng.matrix(n * n, -1.0, 1.0);
            let x = rng.matrix(n, -1.0, 1.0);
            let ga = gpu.upload_as(&a, (n, n), format)?;
            let gx = gpu.upload_as(&x, (n, 1), format)?;
            let (av, xv) = match format {
                Format::F32 => (a.clone(), x.clone()),
                Format::F16 => (rounded(&a)?, rounded(&x)?),
            };
            let out = Layout::new(n, 1, max_side)?;
            let mut paths: Vec<Path> =
                vec![("default mul_vec".into(), Box::new(|| gpu.mul_vec(&ga, &gx)))];
            let (ga, gx) = (&ga, &gx);
            for (name, k) in &kernels {
                let program = move || Program::new(k.clone(), vec![ga.layout(), gx.layout()], out);
                paths.push((
                    name.clone(),
                    Box::new(move || gpu.run(program(), &[ga, gx])),
                ));
            }
            let mut seconds = vec![vec![]; paths.len()];
            let mut results = vec![None; paths.len()];
            for round in 0..o.batches {
                for i in 0..paths.len() {
                    let p = (round + i) % paths.len();
                    let (s, r) = time(gpu, 3, 50, &paths[p].1)?;
                    seconds[p].push(s);
                    results[p] = Some(r);
                }
            }
            for (i, (name, _)) in paths.iter().enumerate() {
                let s = median(seconds[i].clone());
                let y = block_on(gpu.read(results[i].as_ref().expect("ran")))?;
                let check = if name.starts_with("empty") {
                    "-".to_string()
                } else {
                    let worst = check_matvec(&y, &av, &xv, n);
                    format!("{} {worst:.2e}", if worst <= 1.0 { "ok" } else { "WRONG" })
                };
                println!(
                    "n={n:5} {format:?} {name:22} {:8.2} us {:7.0} GB/s  {check}",
                    s * 1e6,
                    (4 * n * n) as f64 / s / 1e9
                );
            }
            drop(paths);
            drop(results);
            gpu.release_pooled();
        }
    }
    webgpu(gpu).set_runtime_checks(wgpu::ShaderRuntimeChecks::checked());
    Ok(())
}
