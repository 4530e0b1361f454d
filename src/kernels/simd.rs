//! The abstract four-wide SIMD program of the SIMD-optimization paper (spec §1.2, the paper's Table 1), as data:
//! the instructions `LinearExpr::instructions` (`crate::simd_expr`) generates and the cost counts,
//! one by one, so that [`super::linear`] can write a shader (WGSL or GLSL) from it, and a
//! float64 interpreter that checks it. Kept here, beside the kernels made from it, so that
//! kernel generation needs nothing from the domain above.
//!
//! The machine: registers of four lanes (x, y, z, w); sources may be swizzled, destinations
//! masked, at no cost; every register starts at zero (in a shader, `var r = vec4<f32>()`).
//! Registers: `X j` holds quadruple `x_j` (input), `Y i` quadruple `y_i` (output), `R k` a
//! temporary for one row-major term, `C k` a constant: a peel or a row of `A_ij`, or `b_i`.

use std::fmt;

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
    /// A constant: `SimdProgram::constants[k]`.
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

/// The whole program for one expression: its length is `LinearExpr::cost`.
#[derive(Debug, Clone, PartialEq)]
pub struct SimdProgram {
    /// The instructions, in execution order.
    pub instructions: Vec<Instruction>,
    /// The constant registers `C k`, lanes x..w.
    pub constants: Vec<[f64; 4]>,
    /// How many input quadruples `X j` and output quadruples `Y i` (n = ceil(m / 4)).
    pub quadruples: usize,
    /// How many temporaries `R k`.
    pub temporaries: usize,
}

/// The lane names, as swizzles and masks write them.
pub const LANES: [char; 4] = ['x', 'y', 'z', 'w'];

impl SimdProgram {
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
        let mut xs = vec![[0.0; 4]; self.quadruples];
        for (k, v) in x.iter().enumerate() {
            xs[k / 4][k % 4] = *v;
        }
        let all: Vec<usize> = (0..self.len()).collect();
        self.run_quadruples(&all, &xs).concat()
    }

    /// Runs only the instructions numbered `which` (in that order), from registers at zero, on
    /// the input quadruples `xs`, and returns the output quadruples `y_i`: how a kernel that
    /// evaluates one block row at a time is checked.
    pub fn run_quadruples(&self, which: &[usize], xs: &[[f64; 4]]) -> Vec<[f64; 4]> {
        let mut ys = vec![[0.0; 4]; self.quadruples];
        let mut rs = vec![[0.0; 4]; self.temporaries];
        for ins in which.iter().map(|&k| &self.instructions[k]) {
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
        ys
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

impl fmt::Display for SimdProgram {
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
