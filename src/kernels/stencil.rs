//! The kernels of the SIMD-optimization paper's stencil solvers (spec §1.5): one pass writes quadruple `q` of every
//! grid line, from the in-line block `S` of the line (block row `q` of its abstract four-wide
//! program, coefficients baked in, written by [`super::simd_expr`]'s row functions), couplings to
//! the same quadruple of the neighbouring lines, corner couplings to single lanes, and a last
//! input added or subtracted. Around `shaders/stencil/stencil.*`.
//!
//! ```text
//!   texture j = quadruple j of every line         the kernel of quadruple q, at texel (c, r):
//!   +---------+---------+---------+               y  = y_q(x_j(c, r) for j read by row q)
//!   | x_0     | x_1     | x_2 ... |   (c, r)        + t * x_q(c + dc, r + dr), clamped
//!   +---------+---------+---------+                 + a * x_s(c + dc, r + dr).lane  (corners)
//!    one texel of each = one grid line              +/- last(c, r)
//! ```
//!
//! The enhanced block Jacobi solver runs one such kernel per slab, each reading the newest
//! slabs before it; the wave runs all of them on step k to make step k + 1.

use std::fmt::Write;

use super::simd::{SimdProgram, LANES};
use super::simd_expr::{literal, row_function, Lang};
use super::{Kernel, Template, INPUT_NAMES, MAX_INPUTS};
use crate::error::{Error, Result};

/// A coupling of one lane of the output to one lane of another quadruple at a shifted texel,
/// zero where that texel is outside the texture (zero Dirichlet).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corner {
    /// The lane of the output quadruple.
    pub lane: usize,
    /// The quadruple read.
    pub source: usize,
    /// Its lane.
    pub source_lane: usize,
    /// The texel offset (columns, rows).
    pub offset: (i32, i32),
    /// The coefficient.
    pub coefficient: f64,
}

/// What the last input does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Last {
    /// Added (the Poisson solver's `D^-1 b`).
    Add,
    /// Subtracted (the wave's `w` at step k - 1).
    Subtract,
}

/// One pass of a line stencil (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct LineStencil {
    /// The quadruple `q` written.
    pub quadruple: usize,
    /// The instructions of block row `q` of the program, in order.
    pub rows: Vec<usize>,
    /// The quadruples they read, ascending.
    pub reads: Vec<usize>,
    /// Couplings to the same quadruple at texel offsets, coordinates clamped to the texture
    /// (zero Neumann), each with one coefficient for all four lanes.
    pub neighbours: Vec<((i32, i32), f64)>,
    /// Couplings of single lanes (zero Dirichlet outside the texture).
    pub corners: Vec<Corner>,
    /// What the last input does.
    pub last: Last,
}

impl LineStencil {
    /// The quadruples the kernel reads, in the order of its inputs (the last input follows
    /// them): those of `reads`, then `q` if the neighbours need it, then the corners' sources.
    pub fn inputs(&self) -> Vec<usize> {
        let mut out = self.reads.clone();
        let mut add = |j: usize| {
            if !out.contains(&j) {
                out.push(j);
            }
        };
        if !self.neighbours.is_empty() {
            add(self.quadruple);
        }
        for c in &self.corners {
            add(c.source);
        }
        out
    }
}

/// The kernel of `stencil` for the line program `program`. Its inputs are the textures of
/// [`LineStencil::inputs`], then the last input; all have the output's shape. Fails with
/// [`Error::Argument`] when it would read more than [`MAX_INPUTS`] textures or when a
/// coefficient does not fit a float32.
pub fn line_stencil(program: &SimdProgram, stencil: &LineStencil) -> Result<Kernel> {
    let quads = stencil.inputs();
    if quads.len() + 1 > MAX_INPUTS {
        return Err(Error::Argument(format!(
            "this ordering couples quadruple {} to {} quadruples of its line; a pass reads at \
             most {} (choose an ordering whose block rows read fewer)",
            stencil.quadruple,
            quads.len(),
            MAX_INPUTS - 1
        )));
    }
    let big = (stencil.neighbours.iter().map(|n| n.1))
        .chain(stencil.corners.iter().map(|c| c.coefficient))
        .chain(program.constants.iter().flatten().copied())
        .find(|v| !(*v as f32).is_finite());
    if let Some(v) = big {
        return Err(Error::Argument(format!(
            "coefficient {v} is beyond float32's range (about 3.4e38)"
        )));
    }
    let fill = |template: Template, lang: Lang| {
        let q = stencil.quadruple;
        let rows = if stencil.rows.is_empty() {
            String::new()
        } else {
            row_function(program, q, &stencil.rows, &stencil.reads, lang)
        };
        template
            .register("rows", rows)
            .register("body", body(stencil, &quads, lang))
            .complete()
    };
    Ok(Kernel {
        name: format!("stencil q{}:{}", stencil.quadruple, stencil.rows.len()).into(),
        inputs: &INPUT_NAMES[..quads.len() + 1],
        wgsl: fill(
            Template::new(
                "stencil/stencil.wgsl",
                built_shader!("stencil", "stencil", ".wgsl"),
            ),
            Lang::Wgsl,
        )
        .into(),
        glsl: fill(
            Template::new(
                "stencil/stencil.glsl",
                built_shader!("stencil", "stencil", ".glsl"),
            ),
            Lang::Glsl,
        )
        .into(),
        outputs: 1,
        compute: None,
    })
}

/// `c + dc` written without `+ 0`.
fn shifted(name: &str, d: i32) -> String {
    match d {
        0 => name.to_string(),
        d if d > 0 => format!("{name} + {d}"),
        d => format!("{name} - {}", -d),
    }
}

/// The body of `kernel`: fetches, the row function, neighbours, corners, the last input.
fn body(s: &LineStencil, quads: &[usize], lang: Lang) -> String {
    let name = |j: usize| INPUT_NAMES[quads.iter().position(|&q| q == j).expect("an input")];
    let last = INPUT_NAMES[quads.len()];
    let vec4 = lang.vec4();
    let mut out = String::new();
    for &j in &s.reads {
        out.push_str(&lang.constant(
            "    ",
            &format!("x{j}"),
            &format!("{}_texel(c, r)", name(j)),
        ));
    }
    let start = if s.rows.is_empty() {
        format!("{vec4}(0.0)")
    } else {
        let args: Vec<String> = s.reads.iter().map(|j| format!("x{j}")).collect();
        format!("y_{}({})", s.quadruple, args.join(", "))
    };
    match lang {
        Lang::Wgsl => writeln!(out, "    var y = {start};"),
        Lang::Glsl => writeln!(out, "    vec4 y = {start};"),
    }
    .expect("writing to a String");
    let me = name(s.quadruple);
    for &((dc, dr), t) in &s.neighbours {
        let at = format!(
            "{me}_texel(clamp({}, 0, {me}_width() - 1), clamp({}, 0, {me}_height() - 1))",
            shifted("c", dc),
            shifted("r", dr)
        );
        let t = format!("{vec4}({})", literal(t));
        let value = match lang {
            Lang::Wgsl => format!("fma({t}, {at}, y)"),
            Lang::Glsl => format!("{t} * {at} + y"),
        };
        writeln!(out, "    y = {value};").expect("writing to a String");
    }
    for k in &s.corners {
        let src = name(k.source);
        let (c, r) = (shifted("c", k.offset.0), shifted("r", k.offset.1));
        let fetch = format!("{src}_texel({c}, {r}).{}", LANES[k.source_lane]);
        let lane = LANES[k.lane];
        let a = literal(k.coefficient);
        let value = match lang {
            Lang::Wgsl => format!("fma({a}, {fetch}, y.{lane})"),
            Lang::Glsl => format!("{a} * {fetch} + y.{lane}"),
        };
        writeln!(
            out,
            "    if ({c} >= 0 && {c} < {src}_width() && {r} >= 0 && {r} < {src}_height()) {{\n        \
             y.{lane} = {value};\n    }}"
        )
        .expect("writing to a String");
    }
    let sign = match s.last {
        Last::Add => '+',
        Last::Subtract => '-',
    };
    writeln!(out, "    return y {sign} {last}_texel(c, r);").expect("writing to a String");
    out
}
