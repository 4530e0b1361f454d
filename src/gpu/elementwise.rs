//! Element-wise operations: any expression of [`crate::kernels::Expr`] in ONE pass, two in one
//! pass with two render targets, in place; and the seed's operation set as expressions
//! ([`ops`]).

use super::base::same_shape;
use super::Gpu;
use crate::error::{Error, Result};
use crate::kernels::{self, Expr, Program};
use crate::layout::Layout;
use crate::matrix::Matrix;

impl Gpu {
    /// The element-wise expression `expr` over `inputs` (all of one shape), in one pass.
    pub fn map(&self, expr: &Expr, inputs: &[&Matrix]) -> Result<Matrix> {
        expr.check()?;
        let layouts = self.map_inputs(expr, inputs)?;
        let tile = |tiles: &[&Matrix]| Ok(vec![self.map(expr, tiles)?]);
        if let Some(mut m) = self.tile_wise(inputs, 1, tile)? {
            return Ok(m.remove(0));
        }
        let output = inputs[0].layout;
        self.run(
            Program::new(kernels::map(expr), layouts, output).with_params(&expr.constants()),
            inputs,
        )
    }

    /// Two element-wise expressions over the same inputs, computed in ONE pass that writes two
    /// outputs (two render targets): fused updates such as CG's x and r.
    pub fn map2(
        &self,
        first: &Expr,
        second: &Expr,
        inputs: &[&Matrix],
    ) -> Result<(Matrix, Matrix)> {
        let both = Expr::call2(crate::kernels::Func2::Add, first.clone(), second.clone());
        both.check()?;
        let layouts = self.map_inputs(&both, inputs)?;
        let tile = |tiles: &[&Matrix]| {
            let (a, b) = self.map2(first, second, tiles)?;
            Ok(vec![a, b])
        };
        if let Some(mut m) = self.tile_wise(inputs, 2, tile)? {
            let second = m.pop().expect("two outputs");
            return Ok((m.pop().expect("two outputs"), second));
        }
        let output = inputs[0].layout;
        let mut outs = self.run_multi(
            Program::new(kernels::map2(first, second), layouts, output)
                .with_params(&both.constants()),
            inputs,
        )?;
        let second = outs.pop().expect("two outputs");
        Ok((outs.pop().expect("two outputs"), second))
    }

    /// `this = expr(this, others...)`: input `a` of the expression is `this`.
    pub fn map_mut(&self, expr: &Expr, this: &mut Matrix, others: &[&Matrix]) -> Result<()> {
        let mut inputs = vec![&*this];
        inputs.extend_from_slice(others);
        let result = self.map(expr, &inputs)?;
        *this = result;
        Ok(())
    }

    /// Checks that `inputs` fit `expr` (count, one shape) and returns their layouts.
    fn map_inputs(&self, expr: &Expr, inputs: &[&Matrix]) -> Result<Vec<Layout>> {
        let needed = expr.input_count();
        if inputs.len() != needed {
            return Err(Error::Expr(format!(
                "\"{expr}\" reads {needed} matrices but {} were given",
                inputs.len()
            )));
        }
        let Some(first) = inputs.first() else {
            return Err(Error::Expr(format!(
                "\"{expr}\" reads no matrix: use fill for a constant"
            )));
        };
        for m in &inputs[1..] {
            same_shape("an element-wise expression", first, m)?;
        }
        Ok(inputs.iter().map(|m| m.layout).collect())
    }
}

/// Element-wise expressions of the seed's operation set, built once here so that the device,
/// the JS API and the tests share them.
pub mod ops {
    use crate::kernels::{Expr, Func2};

    fn input(i: usize) -> Expr {
        Expr::Input(i)
    }

    /// `a` (a copy).
    pub fn copy() -> Expr {
        input(0)
    }

    /// `a + b`.
    pub fn add() -> Expr {
        Expr::call2(Func2::Add, input(0), input(1))
    }

    /// `a - b`.
    pub fn sub() -> Expr {
        Expr::call2(Func2::Sub, input(0), input(1))
    }

    /// `a .* b`.
    pub fn component_mul() -> Expr {
        Expr::call2(Func2::Mul, input(0), input(1))
    }

    /// `a * c`.
    pub fn scale(c: f32) -> Expr {
        Expr::call2(Func2::Mul, input(0), Expr::Const(c))
    }

    /// `max(a, c)`.
    pub fn max_scalar(c: f32) -> Expr {
        Expr::call2(Func2::Max, input(0), Expr::Const(c))
    }

    /// `a + b * c` (the ShaderX2 article's `mad(a, b, c)`; with a = this, `this += b * c`).
    pub fn add_scaled(c: f32) -> Expr {
        Expr::call2(
            Func2::Add,
            input(0),
            Expr::call2(Func2::Mul, input(1), Expr::Const(c)),
        )
    }

    /// `a + b .* c` (with a = this, the ShaderX2 article's `this += a .* b`).
    pub fn add_component_mul() -> Expr {
        Expr::call2(
            Func2::Add,
            input(0),
            Expr::call2(Func2::Mul, input(1), input(2)),
        )
    }

    /// `a + (b + c) .* d` (the ShaderX2 article's `madad`).
    pub fn madad() -> Expr {
        Expr::call2(
            Func2::Add,
            input(0),
            Expr::call2(
                Func2::Mul,
                Expr::call2(Func2::Add, input(1), input(2)),
                input(3),
            ),
        )
    }
}
