//! The abstract four-wide program that evaluates `y = A x + b` (spec §1.2, the paper's Table 1
//! and code-generation order), as data: the instructions the cost counts, one by one, so that a
//! shader (WGSL or GLSL) can later be written from it, and a float64 interpreter that checks it.
//!
//! The machine: registers of four lanes (x, y, z, w); sources may be swizzled, destinations
//! masked, at no cost; every register starts at zero (in a shader, `var r = vec4<f32>()`).
//! Registers: `X j` holds quadruple `x_j` (input), `Y i` quadruple `y_i` (output), `R k` a
//! temporary for one row-major term, `C k` a constant: a peel or a row of `A_ij`, or `b_i`.

use std::fmt;

use super::cost::BlockCost;
use super::expr::LinearExpr;

/// The instructions of the paper's Table 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `ADD D, S0, S1`: `D = S0 + S1`, lane by lane.
    Add,
    /// `MUL D, S0, S1`: `D = S0 * S1`, lane by lane.
    Mul,
    /// `MAD D, S0, S1, S2`: `D = S0 * S1 + S2`, lane by lane.
    Mad,
    /// `DP4 D, S0, S1`: every unmasked lane of `D` gets `S0 . S1`, the four-lane dot product.
    Dp4,
    /// `MOV D, S`: `D = S`.
    Mov,
}

/// A four-lane register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    /// Input quadruple `x_j`.
    X(usize),
    /// Output quadruple `y_i`.
    Y(usize),
    /// A temporary (one per row-major term).
    R(usize),
    /// A constant: `Program::constants[k]`.
    C(usize),
}

/// A source operand: a register read through a swizzle (`swizzle[lane]` = the lane read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand {
    /// The register read.
    pub reg: Reg,
    /// For each lane of the result, which lane of `reg` it reads (0..4 = x, y, z, w).
    pub swizzle: [u8; 4],
}

impl Operand {
    /// `reg` read as it is (`.xyzw`).
    pub fn plain(reg: Reg) -> Self {
        Operand {
            reg,
            swizzle: [0, 1, 2, 3],
        }
    }
}

/// One instruction: `op dst.mask, src...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction {
    /// What it computes.
    pub op: Op,
    /// Where the result goes.
    pub dst: Reg,
    /// The lanes of `dst` written, bit `l` for lane `l` (0xF: all four).
    pub mask: u8,
    /// The operands, in the order of Table 1 (two, three for MAD, one for MOV).
    pub src: Vec<Operand>,
}

/// The whole program for one expression: its length is [`LinearExpr::cost`].
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The instructions, in execution order.
    pub instructions: Vec<Instruction>,
    /// The constant registers `C k`, lanes x..w.
    pub constants: Vec<[f64; 4]>,
    /// How many input quadruples `X j` and output quadruples `Y i` (n = ceil(m / 4)).
    pub quadruples: usize,
    /// How many temporaries `R k`.
    pub temporaries: usize,
}

const LANES: [char; 4] = ['x', 'y', 'z', 'w'];

impl Program {
    /// The number of instructions.
    pub fn len(&self) -> usize {
        self.instructions.len()
    }

    /// Whether the program has no instruction (A and b are zero).
    pub fn is_empty(&self) -> bool {
        self.instructions.is_empty()
    }

    /// Runs the program on the abstract machine in f64 for `x` (m values, zero-padded to 4n)
    /// and returns `y` (4n values).
    pub fn run(&self, x: &[f64]) -> Vec<f64> {
        let n = self.quadruples;
        let mut xs = vec![[0.0; 4]; n];
        for (k, v) in x.iter().enumerate() {
            xs[k / 4][k % 4] = *v;
        }
        let mut ys = vec![[0.0; 4]; n];
        let mut rs = vec![[0.0; 4]; self.temporaries];
        for ins in &self.instructions {
            let read = |o: &Operand, ys: &[[f64; 4]], rs: &[[f64; 4]]| -> [f64; 4] {
                let v = match o.reg {
                    Reg::X(j) => xs[j],
                    Reg::Y(i) => ys[i],
                    Reg::R(k) => rs[k],
                    Reg::C(k) => self.constants[k],
                };
                o.swizzle.map(|l| v[l as usize])
            };
            let s: Vec<[f64; 4]> = ins.src.iter().map(|o| read(o, &ys, &rs)).collect();
            let lanes: [f64; 4] = match ins.op {
                Op::Add => [0, 1, 2, 3].map(|l| s[0][l] + s[1][l]),
                Op::Mul => [0, 1, 2, 3].map(|l| s[0][l] * s[1][l]),
                Op::Mad => [0, 1, 2, 3].map(|l| s[0][l] * s[1][l] + s[2][l]),
                Op::Dp4 => [(0..4).map(|l| s[0][l] * s[1][l]).sum(); 4],
                Op::Mov => s[0],
            };
            let dst = match ins.dst {
                Reg::Y(i) => &mut ys[i],
                Reg::R(k) => &mut rs[k],
                Reg::X(_) | Reg::C(_) => unreachable!("inputs and constants are never written"),
            };
            for (l, v) in lanes.iter().enumerate() {
                if ins.mask & (1 << l) != 0 {
                    dst[l] = *v;
                }
            }
        }
        ys.concat()
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reg::X(j) => write!(f, "X{j}"),
            Reg::Y(i) => write!(f, "Y{i}"),
            Reg::R(k) => write!(f, "R{k}"),
            Reg::C(k) => write!(f, "C{k}"),
        }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reg)?;
        if self.swizzle != [0, 1, 2, 3] {
            let s: String = self.swizzle.iter().map(|&l| LANES[l as usize]).collect();
            write!(f, ".{s}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Instruction {
    /// One line as in the paper's listings: `MAD Y0, C1, X0.zzzy, Y0`, `DP4 R3.x, C27, X4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.op {
            Op::Add => "ADD",
            Op::Mul => "MUL",
            Op::Mad => "MAD",
            Op::Dp4 => "DP4",
            Op::Mov => "MOV",
        };
        write!(f, "{op} {}", self.dst)?;
        if self.mask != 0xF {
            let m: String = (0..4)
                .filter(|l| self.mask & (1 << l) != 0)
                .map(|l| LANES[l])
                .collect();
            write!(f, ".{m}")?;
        }
        for s in &self.src {
            write!(f, ", {s}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Program {
    /// The listing, one instruction per line; with `{:#}` the constants follow.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for ins in &self.instructions {
            writeln!(f, "{ins}")?;
        }
        if f.alternate() {
            for (k, c) in self.constants.iter().enumerate() {
                writeln!(f, "C{k} = ({}, {}, {}, {})", c[0], c[1], c[2], c[3])?;
            }
        }
        Ok(())
    }
}

/// Builds a [`Program`] instruction by instruction.
struct Builder {
    program: Program,
}

impl Builder {
    fn constant(&mut self, c: [f64; 4]) -> Reg {
        self.program.constants.push(c);
        Reg::C(self.program.constants.len() - 1)
    }

    fn temporary(&mut self) -> Reg {
        self.program.temporaries += 1;
        Reg::R(self.program.temporaries - 1)
    }

    fn emit(&mut self, op: Op, dst: Reg, mask: u8, src: Vec<Operand>) {
        let ins = Instruction { op, dst, mask, src };
        self.program.instructions.push(ins);
    }
}

impl LinearExpr {
    /// The 4 x 4 block `A_ij` (zero-padded), `[row][column]`.
    fn block(&self, i: usize, j: usize) -> [[f64; 4]; 4] {
        let m = self.size();
        let mut block = [[0.0; 4]; 4];
        for (r, row) in block.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                let (p, q) = (4 * i + r, 4 * j + c);
                if p < m && q < m {
                    *v = self.entry(p, q);
                }
            }
        }
        block
    }

    /// Quadruple `b_i` (zero-padded).
    fn b_quadruple(&self, i: usize) -> [f64; 4] {
        let m = self.size();
        [0, 1, 2, 3].map(|l| {
            if 4 * i + l < m {
                self.b_entry(4 * i + l)
            } else {
                0.0
            }
        })
    }

    /// The abstract program that evaluates this expression in its current order, in the
    /// paper's code-generation order (spec §1.2): per block row `i`, first the row-major terms
    /// (DP4s into a temporary, added to `y_i` with ADDs, `b_i` with them), then the
    /// column-major terms (a MUL, or a MAD accumulating into `y_i`, then MADs), and a MOV when
    /// `y_i` is `b_i` alone. Its length is [`LinearExpr::cost`].
    pub fn instructions(&self) -> Program {
        let n = self.blocks();
        let mut out = Builder {
            program: Program {
                instructions: Vec::new(),
                constants: Vec::new(),
                quadruples: n,
                temporaries: 0,
            },
        };
        for i in 0..n {
            let y = Reg::Y(i);
            let b = self.b_nontrivial(i).then(|| self.b_quadruple(i));
            let b_reg = b.map(|b| out.constant(b));
            let terms: Vec<(usize, BlockCost)> = (0..n)
                .map(|j| (j, self.block_cost(i, j)))
                .filter(|(_, t)| !t.is_null())
                .collect();
            // What y_i holds so far: nothing (None) or a register to accumulate onto; b_i is
            // the addend of the first ADD or MAD when nothing else came before it.
            let mut acc: Option<Reg> = None;
            let mut pending_b = b_reg;
            // 1. Row-major terms: DP4s, one per non-empty row, into a temporary (straight into
            //    y_i for the first when b_i is trivial), then ADD.
            for &(j, _) in terms.iter().filter(|(_, t)| t.row_major()) {
                let block = self.block(i, j);
                let first_into_y = acc.is_none() && pending_b.is_none();
                let t = if first_into_y { y } else { out.temporary() };
                for (r, row) in block.iter().enumerate() {
                    if row.iter().any(|v| *v != 0.0) {
                        let c = out.constant(*row);
                        let src = vec![Operand::plain(c), Operand::plain(Reg::X(j))];
                        out.emit(Op::Dp4, t, 1 << r, src);
                    }
                }
                if !first_into_y {
                    let other = acc
                        .or_else(|| pending_b.take())
                        .expect("y_i or b_i is pending");
                    let src = vec![Operand::plain(other), Operand::plain(t)];
                    out.emit(Op::Add, y, 0xF, src);
                }
                acc = Some(y);
            }
            // 2. Column-major terms: one MUL or MAD per peel, accumulating into y_i.
            for &(j, cost) in terms.iter().filter(|(_, t)| !t.row_major()) {
                for (coefficients, swizzle) in peels(&self.block(i, j), cost.peels) {
                    let c = out.constant(coefficients);
                    let x = Operand {
                        reg: Reg::X(j),
                        swizzle,
                    };
                    match acc.or_else(|| pending_b.take()) {
                        None => out.emit(Op::Mul, y, 0xF, vec![Operand::plain(c), x]),
                        Some(addend) => {
                            let src = vec![Operand::plain(c), x, Operand::plain(addend)];
                            out.emit(Op::Mad, y, 0xF, src);
                        }
                    }
                    acc = Some(y);
                }
            }
            // 3. No term at all: y_i = b_i.
            if let Some(b) = pending_b {
                out.emit(Op::Mov, y, 0xF, vec![Operand::plain(b)]);
            }
        }
        out.program
    }
}

/// The column-major peels of a block (Fig. 1a): peel `p` takes, in each row, the `p`-th
/// non-zero from the left; its lane `r` multiplies that coefficient by the x component the
/// swizzle picks. A lane whose row has no `p`-th non-zero gets coefficient 0 and reads the
/// component after the one its previous peel read (the paper's `R4.wwwz` for the last peel).
fn peels(block: &[[f64; 4]; 4], count: usize) -> Vec<([f64; 4], [u8; 4])> {
    let mut out: Vec<([f64; 4], [u8; 4])> = Vec::with_capacity(count);
    let nonzero_columns: Vec<Vec<usize>> = block
        .iter()
        .map(|row| (0..4).filter(|&c| row[c] != 0.0).collect())
        .collect();
    for p in 0..count {
        let mut coefficients = [0.0; 4];
        let mut swizzle = [0u8; 4];
        for r in 0..4 {
            match nonzero_columns[r].get(p) {
                Some(&c) => {
                    coefficients[r] = block[r][c];
                    swizzle[r] = c as u8;
                }
                None if p == 0 => swizzle[r] = r as u8,
                None => swizzle[r] = (out[p - 1].1[r] + 1).min(3),
            }
        }
        out.push((coefficients, swizzle));
    }
    out
}
