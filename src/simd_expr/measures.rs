//! The generated shaders counted (measure 2 of spec §1.8): the arithmetic and the texel fetches
//! a kernel asks for, from its source text in both languages ([`source_counts`], everywhere)
//! and, natively, from naga's IR of the WGSL (`naga_counts`, with the `native` feature; naga 30.0.1 as in `Cargo.lock`).
//!
//! What is counted: in the kernel's own code (the generated row functions and `kernel`, not
//! the shared prelude), multiply-adds (`fma(` in WGSL; in GLSL ES 3.00, which has no `fma`, a
//! `a * b + c` is counted as one), other multiplications, additions and subtractions,
//! `dot(`s, and texel fetches (calls of an input's `_texel` helper, each one `textureLoad` /
//! `texelFetch`). The source count reads text (one statement a line, as the generator writes
//! them); the naga count walks the parsed module's expressions and call statements, so a
//! lowering the text hides would show there. Both count the code once: for a stencil kernel,
//! which runs all of it for every texel, that is per output texel.

/// Operations and fetches of one kernel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShaderCounts {
    /// Fused multiply-adds (WGSL `fma`; GLSL `a * b + c`).
    pub fma: usize,
    /// Other multiplications.
    pub mul: usize,
    /// Additions and subtractions.
    pub add: usize,
    /// Four-lane dot products.
    pub dot: usize,
    /// Texel fetches.
    pub fetches: usize,
}

impl ShaderCounts {
    /// Arithmetic operations: `fma + mul + add + dot`.
    pub fn ops(&self) -> usize {
        self.fma + self.mul + self.add + self.dot
    }
}

/// The counts of a generated body (`Kernel::wgsl` or `Kernel::glsl`, without the prelude),
/// read from the text: one statement per line, comments skipped; a fetch is a call
/// `name_texel(` (the helper's definition is in the prelude, not here).
pub fn source_counts(body: &str) -> ShaderCounts {
    let mut c = ShaderCounts::default();
    for line in body.lines() {
        let code = line.split("//").next().unwrap_or("").trim();
        if code.starts_with("fn ") || code.starts_with("vec4 y_") || code.starts_with("vec4 kernel")
        {
            continue;
        }
        c.fetches += code.matches("_texel(").count();
        // Index arithmetic (inside fetches' arguments, in the corners' bounds tests) is not
        // counted: only the arithmetic on values.
        if code.starts_with("if ") {
            continue;
        }
        let code = without_arguments(code, "_texel(");
        let fma = code.matches("fma(").count();
        let dot = code.matches("dot(").count();
        let stars = code.matches(" * ").count();
        let plus = code.matches(" + ").count() + code.matches(" - ").count();
        // GLSL's multiply-add: a ` * ` followed by ` + ` in one statement is one MAD.
        let mads = stars.min(plus);
        c.fma += fma + mads;
        c.mul += stars - mads;
        c.add += plus - mads;
        c.dot += dot;
    }
    c
}

/// `code` with the argument list of every call whose name ends in `call` (e.g. `_texel(`)
/// emptied.
fn without_arguments(code: &str, call: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(call) {
        out.push_str(&rest[..at + call.len()]);
        let mut depth = 1;
        let mut end = rest.len();
        for (k, ch) in rest[at + call.len()..].char_indices() {
            match ch {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = at + call.len() + k;
                break;
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The counts of a complete WGSL module (`Kernel::wgsl_source`) from naga's IR: expressions of
/// the functions `kernel` and `y_*` (`Math::Fma`, `Math::Dot`, `Binary` multiply, add and
/// subtract on floats and float vectors) and their calls of `*_texel` helpers. Fails with
/// [`Error::Argument`](crate::error::Error) when naga rejects the module.
#[cfg(feature = "native")]
pub fn naga_counts(wgsl: &str) -> crate::error::Result<ShaderCounts> {
    use naga::{BinaryOperator as B, Expression as E, MathFunction as M, Statement};
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| {
        crate::error::Error::Argument(format!(
            "naga rejects the kernel: {}",
            e.emit_to_string(wgsl)
        ))
    })?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| crate::error::Error::Argument(format!("naga rejects the kernel: {e:?}")))?;
    let mut c = ShaderCounts::default();
    for (handle, f) in module.functions.iter() {
        let name = f.name.as_deref().unwrap_or("");
        if !(name == "kernel" || name.starts_with("y_")) {
            continue;
        }
        let types = &info[handle];
        // Index arithmetic is on i32: count only float operations.
        let is_float = |h: naga::Handle<naga::Expression>| {
            let inner = types[h].ty.inner_with(&module.types);
            matches!(inner.scalar_kind(), Some(naga::ScalarKind::Float))
        };
        for (h, e) in f.expressions.iter() {
            match e {
                E::Math { fun: M::Fma, .. } => c.fma += 1,
                E::Math { fun: M::Dot, .. } => c.dot += 1,
                E::Binary {
                    op: B::Multiply, ..
                } if is_float(h) => c.mul += 1,
                E::Binary {
                    op: B::Add | B::Subtract,
                    ..
                } if is_float(h) => c.add += 1,
                _ => {}
            }
        }
        fn calls(block: &naga::Block, module: &naga::Module, n: &mut usize) {
            for s in block.iter() {
                match s {
                    Statement::Call { function, .. } => {
                        let name = module.functions[*function].name.as_deref().unwrap_or("");
                        if name.ends_with("_texel") {
                            *n += 1;
                        }
                    }
                    Statement::Block(b) => calls(b, module, n),
                    Statement::If { accept, reject, .. } => {
                        calls(accept, module, n);
                        calls(reject, module, n);
                    }
                    Statement::Switch { cases, .. } => {
                        for case in cases {
                            calls(&case.body, module, n);
                        }
                    }
                    Statement::Loop {
                        body, continuing, ..
                    } => {
                        calls(body, module, n);
                        calls(continuing, module, n);
                    }
                    _ => {}
                }
            }
        }
        calls(&f.body, &module, &mut c.fetches);
    }
    Ok(c)
}
