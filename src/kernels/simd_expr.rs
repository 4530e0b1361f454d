//! The kernel of the SIMD-optimization paper's `y = A x + b`, generated at run time from the abstract four-wide
//! program ([`super::simd::SimdProgram`]) with every coefficient baked in as a literal (the paper's
//! "melted into the kernel"): WGSL and its GLSL twin, around `shaders/simd_expr/linear.*`.
//!
//! The program evaluates the permuted expression `y' = (P A P^T) x' + P b` with
//! `x'_p = x_perm[p]`, `y'_p = y_perm[p]`; the kernel takes `x` and writes `y` in the ORIGINAL
//! order, so the permutation is applied inside, as a gather and a scatter:
//!
//! ```text
//!  x (texels t: rows 4t..4t+3)     x'_j (program input)        y'_i (program output)     y (texel t)
//!  t0 = x_texel(col, 0) ---+--> x0 = (t0.z, t2.x, ..) --+--> y_0(x0, x2) ----+--> (y0.y, y1.x, ..)
//!  t2 = x_texel(col, 2) ---+                            |                    |
//!                          +--> x2 = (t2.y, ..)      ---+--> y_1(x2)     ----+
//!           gather: only the texels the case needs          scatter: each output row from
//!                                                           the lane of y' that holds it
//! ```
//!
//! [`LinearPlan`] is this bookkeeping as data (which instructions make each `y'_i`, which
//! texel and lane each lane of `x'_j` comes from, which `y'_i` lane each output row takes),
//! with a float64 model of the kernel ([`LinearPlan::evaluate`]); [`linear`] writes it out.
//! A fragment evaluates only the (at most four) block rows its output texel needs, and fetches
//! only the texels those read, unless the order is so scattered that every case would need
//! most of them: then the fetches and gathers come once before the switch
//! ([`LinearPlan::shares_gather`]), which keeps the shader O(n) lines instead of O(n^2).

use crate::order::distinct;
use std::fmt::Write;

use super::simd::{Instruction, Op, Operand, Reg, SimdProgram, LANES};
use super::{Kernel, Template};
use crate::error::{Error, Result};

/// The largest expression size m baked into one kernel: 64 block rows, at most 64 cases.
pub const MAX_BAKED_SIZE: usize = 256;
/// The most instructions baked into one kernel (about 100 characters of shader source each;
/// the paper's vertex programs held 256): past it shader compilers slow down or give up.
pub const MAX_BAKED_INSTRUCTIONS: usize = 4096;

/// How much more per-case gathering than one shared gather [`LinearPlan::shares_gather`]
/// accepts: a banded matrix in natural order (each case needs the texels beside its own)
/// stays per case, a scattered order shares.
pub const SHARED_GATHER_FACTOR: usize = 4;

/// Where the lanes of a quadruple come from: `(register, lane)`, or `None` for zero.
pub type Lanes = [Option<(usize, usize)>; 4];

/// How the kernel of a program and a permutation is put together (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct LinearPlan {
    /// The size m.
    pub size: usize,
    /// Per block row `i`: the numbers of the instructions that compute `y'_i`, in order (empty
    /// where `y'_i` is zero).
    pub rows: Vec<Vec<usize>>,
    /// Per block row `i`: the input quadruples `x'_j` its instructions read, ascending.
    pub reads: Vec<Vec<usize>>,
    /// Per input quadruple `j`: lane `l` of `x'_j` is lane `.1` of texel `.0` of `x` (`None`:
    /// padding, zero).
    pub sources: Vec<Lanes>,
    /// Per output texel `t`: row `4t + l` of `y` is lane `.1` of `y'_i` with `i = .0` (`None`:
    /// padding, or a block row with no instruction: zero).
    pub targets: Vec<Lanes>,
}

impl LinearPlan {
    /// The plan of `program` (from an expression of size `perm.len()` in the order `perm`:
    /// `perm[p]` is the original index of the variable at position `p`). Fails with
    /// [`Error::Argument`] past [`MAX_BAKED_SIZE`] or [`MAX_BAKED_INSTRUCTIONS`], or when the
    /// program does not fit the permutation.
    pub fn new(program: &SimdProgram, perm: &[usize]) -> Result<Self> {
        let m = perm.len();
        if m == 0 || m > MAX_BAKED_SIZE {
            return Err(Error::Argument(format!(
                "a kernel with baked coefficients takes expressions of size 1 to \
                 {MAX_BAKED_SIZE}, this one is {m}"
            )));
        }
        if program.len() > MAX_BAKED_INSTRUCTIONS {
            return Err(Error::Argument(format!(
                "this expression needs {} four-wide instructions, more than the \
                 {MAX_BAKED_INSTRUCTIONS} a kernel with baked coefficients may hold",
                program.len()
            )));
        }
        let n = m.div_ceil(4);
        if program.quadruples != n {
            return Err(Error::Argument(format!(
                "a program of {} quadruples does not fit an expression of size {m}",
                program.quadruples
            )));
        }
        let mut position = vec![usize::MAX; m];
        for (p, &r) in perm.iter().enumerate() {
            match position.get_mut(r) {
                Some(slot) if *slot == usize::MAX => *slot = p,
                _ => {
                    return Err(Error::Argument(format!(
                        "{perm:?} is not a permutation of 0..{m}"
                    )))
                }
            }
        }
        // Each instruction belongs to the block row of the first Y it or a later one writes:
        // the program is written block row by block row, temporaries first, Y last.
        let mut rows = vec![Vec::new(); n];
        let mut row = None;
        for (k, ins) in program.instructions.iter().enumerate().rev() {
            if let Reg::Y(i) = ins.dst {
                row = Some(i);
            }
            let i = row.ok_or_else(|| {
                Error::Argument("the program ends with an instruction that writes no Y".into())
            })?;
            rows[i].push(k);
        }
        for r in &mut rows {
            r.reverse();
        }
        let reads = rows
            .iter()
            .enumerate()
            .map(|(i, which)| {
                let mut xs = Vec::new();
                for ins in which.iter().map(|&k| &program.instructions[k]) {
                    for o in &ins.src {
                        match o.reg {
                            Reg::X(j) => {
                                xs.push(j);
                            }
                            Reg::Y(other) if other != i => {
                                return Err(Error::Argument(format!(
                                    "block row {i} of the program reads Y{other}"
                                )))
                            }
                            _ => {}
                        }
                    }
                }
                Ok(distinct(xs))
            })
            .collect::<Result<Vec<Vec<usize>>>>()?;
        let lane = |k: usize| (k < m).then_some(k);
        let sources = (0..n)
            .map(|j| [0, 1, 2, 3].map(|l| lane(4 * j + l).map(|p| (perm[p] / 4, perm[p] % 4))))
            .collect();
        let targets = (0..n)
            .map(|t| {
                [0, 1, 2, 3].map(|l| {
                    let p = position[lane(4 * t + l)?];
                    (!rows[p / 4].is_empty()).then_some((p / 4, p % 4))
                })
            })
            .collect();
        Ok(LinearPlan {
            size: m,
            rows,
            reads,
            sources,
            targets,
        })
    }

    /// The block rows output texel `t` needs, ascending.
    pub fn rows_of(&self, t: usize) -> Vec<usize> {
        distinct(self.targets[t].iter().flatten().map(|&(i, _)| i))
    }

    /// The input quadruples output texel `t` needs, ascending.
    pub fn quadruples_of(&self, t: usize) -> Vec<usize> {
        distinct((self.rows_of(t).iter()).flat_map(|&i| self.reads[i].iter().copied()))
    }

    /// The texels of `x` output texel `t` fetches, ascending.
    pub fn texels_of(&self, t: usize) -> Vec<usize> {
        distinct(
            (self.quadruples_of(t).iter())
                .flat_map(|&j| self.sources[j].iter().flatten().map(|&(texel, _)| texel)),
        )
    }

    /// Whether the kernel gathers every quadruple once, before choosing its case, rather than
    /// each case the ones it needs: when the cases would together fetch and gather more than
    /// [`SHARED_GATHER_FACTOR`] times as much (a scattered order, where every case needs most
    /// texels: per-case gathers would make the shader O(n^2) lines long).
    pub fn shares_gather(&self) -> bool {
        let (texels, quads) = self.gathered_by_all();
        let per_case: usize = (0..self.targets.len())
            .map(|t| self.texels_of(t).len() + self.quadruples_of(t).len())
            .sum();
        per_case > SHARED_GATHER_FACTOR * (texels.len() + quads.len())
    }

    /// The texels and quadruples some case needs, ascending.
    pub fn gathered_by_all(&self) -> (Vec<usize>, Vec<usize>) {
        let (mut texels, mut quads) = (Vec::new(), Vec::new());
        for t in 0..self.targets.len() {
            texels.extend(self.texels_of(t));
            quads.extend(self.quadruples_of(t));
        }
        (distinct(texels), distinct(quads))
    }

    /// What the kernel computes for one vector `x` (m values, original order), in float64:
    /// per output texel, only the texels, quadruples and block rows it needs (everything else
    /// is NaN, so that a missing dependence shows), then its four rows picked out.
    pub fn evaluate(&self, program: &SimdProgram, x: &[f64]) -> Vec<f64> {
        let n = self.targets.len();
        let mut y = vec![0.0; self.size];
        for t in 0..n {
            let mut texels = vec![[f64::NAN; 4]; n];
            for texel in self.texels_of(t) {
                texels[texel] = [0, 1, 2, 3].map(|l| x.get(4 * texel + l).copied().unwrap_or(0.0));
            }
            let mut xs = vec![[f64::NAN; 4]; n];
            for j in self.quadruples_of(t) {
                xs[j] = self.sources[j].map(|s| s.map_or(0.0, |(texel, l)| texels[texel][l]));
            }
            let mut ys = vec![[f64::NAN; 4]; n];
            for i in self.rows_of(t) {
                ys[i] = program.run_quadruples(&self.rows[i], &xs)[i];
            }
            for (l, target) in self.targets[t].iter().enumerate() {
                if let Some(v) = y.get_mut(4 * t + l) {
                    *v = target.map_or(0.0, |(i, lane)| ys[i][lane]);
                }
            }
        }
        y
    }
}

/// The two shading languages, as far as the generated code differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    /// WGSL.
    Wgsl,
    /// GLSL ES 3.00.
    Glsl,
}

impl Lang {
    pub(super) fn vec4(self) -> &'static str {
        match self {
            Lang::Wgsl => "vec4<f32>",
            Lang::Glsl => "vec4",
        }
    }

    /// `let name = value;` (WGSL) or `vec4 name = value;` (GLSL), indented.
    pub(super) fn constant(self, indent: &str, name: &str, value: &str) -> String {
        match self {
            Lang::Wgsl => format!("{indent}let {name} = {value};\n"),
            Lang::Glsl => format!("{indent}vec4 {name} = {value};\n"),
        }
    }

    /// A zeroed four-lane variable.
    fn zeroed(self, name: &str) -> String {
        match self {
            Lang::Wgsl => format!("    var {name} = vec4<f32>();\n"),
            Lang::Glsl => format!("    vec4 {name} = vec4(0.0);\n"),
        }
    }
}

/// The kernel that computes `y = A x + b` for the expression whose program is `program`, in
/// the order `perm` (see [`LinearPlan::new`]): input `x` (m x c, one vector per column),
/// output `y` (m x c, original order). Fails with [`Error::Argument`] past the size caps or
/// when a coefficient does not fit a float32.
pub fn linear(program: &SimdProgram, perm: &[usize]) -> Result<Kernel> {
    let plan = LinearPlan::new(program, perm)?;
    for (k, c) in program.constants.iter().enumerate() {
        if let Some(v) = c.iter().find(|v| !(**v as f32).is_finite()) {
            return Err(Error::Argument(format!(
                "coefficient {v} (constant C{k}) is beyond float32's range (about 3.4e38)"
            )));
        }
    }
    let fill = |template: Template, lang: Lang| {
        let (prologue, cases) = prologue_and_cases(&plan, lang);
        template
            .register("rows", row_functions(program, &plan, lang))
            .register("prologue", prologue)
            .register("cases", cases)
            .complete()
    };
    Ok(Kernel {
        name: format!("linear{}:{}", plan.size, program.len()).into(),
        inputs: &["x"],
        wgsl: fill(template!("simd_expr/linear.wgsl"), Lang::Wgsl).into(),
        glsl: fill(template!("simd_expr/linear.glsl"), Lang::Glsl).into(),
        outputs: 1,
        compute: None,
    })
}

/// A float32 literal both languages read alike: the shortest decimal that rounds to it.
pub(super) fn literal(v: f64) -> String {
    let v = v as f32;
    if v == 0.0 {
        "0.0".into()
    } else {
        format!("{v:?}")
    }
}

/// The lanes `lanes` (register names by number) as one expression: a register as it is, a
/// swizzle of one register, or a constructor.
fn lanes_expr(lanes: &Lanes, name: impl Fn(usize) -> String, lang: Lang) -> String {
    if let [Some((first, _)), ..] = lanes {
        if lanes
            .iter()
            .all(|s| matches!(s, Some((r, _)) if r == first))
        {
            let swizzle: String = lanes.iter().flatten().map(|&(_, l)| LANES[l]).collect();
            return match swizzle.as_str() {
                "xyzw" => name(*first),
                s => format!("{}.{s}", name(*first)),
            };
        }
    }
    let parts: Vec<String> = (lanes.iter())
        .map(|s| s.map_or("0.0".into(), |(r, l)| format!("{}.{}", name(r), LANES[l])))
        .collect();
    format!("{}({})", lang.vec4(), parts.join(", "))
}

/// An operand: `x3.yxyx`, `y`, `r0`, or a constant as a literal vector.
fn operand(o: &Operand, program: &SimdProgram, lang: Lang) -> String {
    let reg = match o.reg {
        Reg::X(j) => format!("x{j}"),
        Reg::Y(_) => "y".into(),
        Reg::R(k) => format!("r{k}"),
        Reg::C(k) => {
            let c = program.constants[k].map(literal);
            format!("{}({})", lang.vec4(), c.join(", "))
        }
    };
    match o.swizzle {
        [0, 1, 2, 3] => reg,
        s => format!(
            "{reg}.{}",
            s.map(|l| LANES[l as usize]).iter().collect::<String>()
        ),
    }
}

/// One instruction as a statement (with its listing line as a comment above it).
fn statement(ins: &Instruction, program: &SimdProgram, lang: Lang) -> String {
    let s: Vec<String> = ins.src.iter().map(|o| operand(o, program, lang)).collect();
    let dst = match ins.dst {
        Reg::Y(_) => "y".to_string(),
        other => operand(&Operand::plain(other), program, lang),
    };
    let value = match (ins.op, lang) {
        (Op::Add, _) => format!("{} + {}", s[0], s[1]),
        (Op::Mul, _) => format!("{} * {}", s[0], s[1]),
        (Op::Mad, Lang::Wgsl) => format!("fma({}, {}, {})", s[0], s[1], s[2]),
        (Op::Mad, Lang::Glsl) => format!("{} * {} + {}", s[0], s[1], s[2]),
        (Op::Dp4, _) => format!("dot({}, {})", s[0], s[1]),
        (Op::Mov, _) => s[0].clone(),
    };
    let mut out = format!("    // {ins}\n");
    match (ins.mask, ins.op) {
        (0xF, Op::Dp4) => writeln!(out, "    {dst} = {}({value});", lang.vec4()),
        (0xF, _) => writeln!(out, "    {dst} = {value};"),
        // Masked: one lane at a time (WGSL assigns no multi-lane swizzle).
        (mask, op) => (0..4).filter(|l| mask & (1 << l) != 0).try_for_each(|l| {
            let lane = LANES[l];
            match op {
                Op::Dp4 => writeln!(out, "    {dst}.{lane} = {value};"),
                _ => writeln!(out, "    {dst}.{lane} = ({value}).{lane};"),
            }
        }),
    }
    .expect("writing to a String");
    out
}

/// One function `y_i(x_j...)` per block row that has instructions.
fn row_functions(program: &SimdProgram, plan: &LinearPlan, lang: Lang) -> String {
    let mut out = String::new();
    for (i, which) in plan.rows.iter().enumerate() {
        if !which.is_empty() {
            out.push_str(&row_function(program, i, which, &plan.reads[i], lang));
        }
    }
    out
}

/// The function `y_i(x_j...)` of block row `i`: the instructions `which` of `program`, reading
/// the quadruples `reads` (its parameters, in that order).
pub(super) fn row_function(
    program: &SimdProgram,
    i: usize,
    which: &[usize],
    reads: &[usize],
    lang: Lang,
) -> String {
    let mut out = String::new();
    let params: Vec<String> = (reads.iter())
        .map(|j| match lang {
            Lang::Wgsl => format!("x{j}: vec4<f32>"),
            Lang::Glsl => format!("vec4 x{j}"),
        })
        .collect();
    let params = params.join(", ");
    match lang {
        Lang::Wgsl => writeln!(out, "fn y_{i}({params}) -> vec4<f32> {{"),
        Lang::Glsl => writeln!(out, "vec4 y_{i}({params}) {{"),
    }
    .expect("writing to a String");
    out.push_str(&lang.zeroed("y"));
    let temporaries = distinct(
        which
            .iter()
            .filter_map(|&k| match program.instructions[k].dst {
                Reg::R(r) => Some(r),
                _ => None,
            }),
    );
    for r in temporaries {
        out.push_str(&lang.zeroed(&format!("r{r}")));
    }
    for &k in which {
        out.push_str(&statement(&program.instructions[k], program, lang));
    }
    out.push_str("    return y;\n}\n\n");
    out
}

/// The fetches of `texels` and the gathers of quadruples `quads`, one declaration a line.
fn gather(
    plan: &LinearPlan,
    lang: Lang,
    indent: &str,
    texels: &[usize],
    quads: &[usize],
) -> String {
    let mut out = String::new();
    for texel in texels {
        let fetch = format!("x_texel(col, {texel})");
        out.push_str(&lang.constant(indent, &format!("t{texel}"), &fetch));
    }
    for &j in quads {
        let value = lanes_expr(&plan.sources[j], |texel| format!("t{texel}"), lang);
        out.push_str(&lang.constant(indent, &format!("x{j}"), &value));
    }
    out
}

/// The gather shared by every case (`{prologue}`), if the plan shares it, and one case per
/// output texel: fetch and gather (unless shared), evaluate the block rows, scatter.
fn prologue_and_cases(plan: &LinearPlan, lang: Lang) -> (String, String) {
    let shared = plan.shares_gather();
    let prologue = if shared {
        let (texels, quads) = plan.gathered_by_all();
        gather(plan, lang, "    ", &texels, &quads)
    } else {
        String::new()
    };
    let mut out = String::new();
    let indent = "            ";
    for (t, targets) in plan.targets.iter().enumerate() {
        if targets.iter().all(Option::is_none) {
            continue; // four zero rows: the default case
        }
        writeln!(out, "        case {t}: {{").expect("writing to a String");
        if !shared {
            out.push_str(&gather(
                plan,
                lang,
                indent,
                &plan.texels_of(t),
                &plan.quadruples_of(t),
            ));
        }
        for i in plan.rows_of(t) {
            let args: Vec<String> = plan.reads[i].iter().map(|j| format!("x{j}")).collect();
            let call = format!("y_{i}({})", args.join(", "));
            out.push_str(&lang.constant(indent, &format!("y{i}"), &call));
        }
        let value = lanes_expr(targets, |i| format!("y{i}"), lang);
        writeln!(out, "{indent}result = {value};").expect("writing to a String");
        if lang == Lang::Glsl {
            writeln!(out, "{indent}break;").expect("writing to a String");
        }
        writeln!(out, "        }}").expect("writing to a String");
    }
    (prologue, out)
}
