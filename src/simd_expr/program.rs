//! The code-generation stage of the SIMD-optimization paper (spec §1.2, the paper's code-generation order): the
//! abstract four-wide program ([`SimdProgram`], defined in [`crate::kernels::simd`] beside the
//! kernels made from it) that evaluates `y = A x + b`, built from the expression's blocks.

use super::cost::BlockCost;
use super::expr::LinearExpr;
use crate::kernels::simd::{Instruction, Op, Operand, Reg, SimdProgram};

/// Builds a [`SimdProgram`] instruction by instruction.
struct Builder {
    program: SimdProgram,
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
    pub fn instructions(&self) -> SimdProgram {
        let n = self.blocks();
        let mut out = Builder {
            program: SimdProgram {
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
