//! Instruction counts of texla's element-wise kernels (the thesis's Table 5 "Count" column),
//! natively only (the `native` feature): the kernel's complete WGSL, as the page's
//! `gpu.map(expr, inputs)` and `gpu.sincos(a)` build it ([`kernels::map`], [`kernels::map2`],
//! [`Kernel::wgsl_source`]), compiled by naga (the compiler wgpu itself uses natively) to
//! SPIR-V, and the SPIR-V instructions inside function bodies counted.
//!
//! What is counted: every instruction strictly between an `OpFunction` and its `OpFunctionEnd`
//! (parameters, labels, variables, loads, stores, calls, arithmetic and returns alike).
//! "function" counts the helpers the expression calls (`f_sin`, `f_div`, ...; `f_sin` and
//! `f_cos` for sincos) and every function they call in turn, each once: the function's own
//! code, without the texel fetches, padding mask and store around it. "kernel" counts every
//! function of the whole fragment shader, entry point included, after unused functions of the
//! shared `functions.wgsl` are removed (`naga::compact`). naga emits straightforward,
//! unoptimised SPIR-V (one function per WGSL function, nothing inlined, a call costs its
//! parameters, label and return), so these count the code texla hands the driver, not the
//! machine instructions the driver finally runs, nor the thesis's ps_2_0 instructions (where
//! one 4-wide operation is one instruction and `sincos` a macro).

use crate::error::{Error, Result};
use crate::kernels::{self, Expr, Kernel};

/// The functions `runFunctionBenchmark` (www/benchmark/bench.js) times, in its order: (name, the
/// expression given to `gpu.map`). `sincos` (no expression) is `gpu.sincos`: sin and cos in one
/// pass with two render targets.
pub const TABLE5: [(&str, Option<&str>); 24] = [
    ("inv", Some("inv(a)")),
    ("sqrt", Some("sqrt(a)")),
    ("invsqrt", Some("invsqrt(a)")),
    ("cbrt", Some("cbrt(a)")),
    ("exp", Some("exp(a)")),
    ("ln", Some("ln(a)")),
    ("log10", Some("log10(a)")),
    ("sin", Some("sin(a)")),
    ("sin_builtin", Some("sin_builtin(a)")),
    ("cos", Some("cos(a)")),
    ("tan", Some("tan(a)")),
    ("asin", Some("asin(a)")),
    ("acos", Some("acos(a)")),
    ("atan", Some("atan(a)")),
    ("sinh", Some("sinh(a)")),
    ("cosh", Some("cosh(a)")),
    ("tanh", Some("tanh(a)")),
    ("asinh", Some("asinh(a)")),
    ("acosh", Some("acosh(a)")),
    ("atanh", Some("atanh(a)")),
    ("div", Some("a / b")),
    ("pow", Some("pow(a, b)")),
    ("atan2", Some("atan2(a, b)")),
    ("sincos", None),
];

/// The naga release that counts (the one wgpu 30 builds with; Cargo.toml pins it).
pub const NAGA_VERSION: &str = "30.0.1";

/// One row of the table: a function's kernel and its counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Count {
    /// The name in www/benchmark/bench.js.
    pub name: &'static str,
    /// The expression, or "sin(a); cos(a)" for sincos.
    pub expression: String,
    /// SPIR-V instructions inside the bodies of the helpers the expression calls and of the
    /// functions they call (each once).
    pub function: usize,
    /// SPIR-V functions behind `function`.
    pub helpers: usize,
    /// SPIR-V instructions inside every function body of the whole kernel.
    pub kernel: usize,
}

/// The kernel `gpu.map(expression)` runs, or for `None` the one of `gpu.sincos`.
pub fn kernel_of(expression: Option<&str>) -> Result<Kernel> {
    Ok(match expression {
        Some(text) => kernels::map(&Expr::parse(text)?),
        None => kernels::map2(
            &Expr::call(kernels::Func::Sin, Expr::Input(0)),
            &Expr::call(kernels::Func::Cos, Expr::Input(0)),
        ),
    })
}

/// SPIR-V of WGSL module `source` by naga: parsed, unused functions removed, validated, written
/// with naga's default options (no bounds checks) plus debug names (`OpName`, outside function
/// bodies: they name the functions and change no count).
pub fn spirv(source: &str) -> Result<Vec<u32>> {
    let fail = |what: &str, e: String| Error::Gpu(format!("naga {what}: {e}"));
    let mut module = naga::front::wgsl::parse_str(source)
        .map_err(|e| fail("parse", e.emit_to_string(source)))?;
    naga::compact::compact(&mut module, naga::compact::KeepUnused::No);
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| fail("validation", e.emit_to_string(source)))?;
    use naga::back::spv::WriterFlags;
    let options = naga::back::spv::Options {
        flags: WriterFlags::ADJUST_COORDINATE_SPACE
            | WriterFlags::LABEL_VARYINGS
            | WriterFlags::CLAMP_FRAG_DEPTH
            | WriterFlags::DEBUG,
        ..Default::default()
    };
    naga::back::spv::write_vec(&module, &info, &options, None)
        .map_err(|e| fail("SPIR-V output", e.to_string()))
}

/// One function of a SPIR-V module.
#[derive(Debug, Clone, Default)]
pub struct SpirvFunction {
    /// Its debug name (`OpName`), or empty.
    pub name: String,
    /// Instructions strictly between its `OpFunction` and `OpFunctionEnd`.
    pub instructions: usize,
    /// The result ids of the functions it calls (`OpFunctionCall`).
    pub calls: Vec<u32>,
}

/// The functions of a SPIR-V binary by result id. After the 5-word header, each instruction's
/// first word holds its length in words (high 16 bits) and its opcode (low 16 bits).
pub fn functions(words: &[u32]) -> std::collections::BTreeMap<u32, SpirvFunction> {
    const OP_NAME: u32 = 5;
    const OP_FUNCTION: u32 = 54;
    const OP_FUNCTION_END: u32 = 56;
    const OP_FUNCTION_CALL: u32 = 57;
    let mut names = std::collections::HashMap::new();
    let mut functions = std::collections::BTreeMap::new();
    let mut current: Option<(u32, SpirvFunction)> = None;
    let mut at = 5;
    while at < words.len() {
        let (length, opcode) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        let operands = &words[at + 1..(at + length.max(1)).min(words.len())];
        match (opcode, current.as_mut()) {
            (OP_NAME, _) if !operands.is_empty() => {
                // A nul-terminated UTF-8 string packed little-endian into words.
                let bytes: Vec<u8> = operands[1..].iter().flat_map(|w| w.to_le_bytes()).collect();
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                names.insert(
                    operands[0],
                    String::from_utf8_lossy(&bytes[..end]).into_owned(),
                );
            }
            (OP_FUNCTION, None) if operands.len() > 1 => {
                current = Some((operands[1], SpirvFunction::default()));
            }
            (OP_FUNCTION_END, Some(_)) => {
                let (id, mut f) = current.take().expect("inside a function");
                f.name = names.get(&id).cloned().unwrap_or_default();
                functions.insert(id, f);
            }
            (_, Some((_, f))) => {
                f.instructions += 1;
                if opcode == OP_FUNCTION_CALL && operands.len() > 2 {
                    f.calls.push(operands[2]);
                }
            }
            _ => {}
        }
        at += length.max(1);
    }
    functions
}

/// The counts of one function of [`TABLE5`].
pub fn count(name: &'static str, expression: Option<&str>) -> Result<Count> {
    let all = functions(&spirv(&kernel_of(expression)?.wgsl_source())?);
    let kernel = all.values().map(|f| f.instructions).sum();
    // The helpers the kernel body calls (f_sin, f_div, ...), then whatever they call, each once.
    let body = all.values().find(|f| f.name == "kernel");
    let mut todo: Vec<u32> = body
        .map(|f| f.calls.clone())
        .unwrap_or_default()
        .into_iter()
        .filter(|id| all.get(id).is_some_and(|f| f.name.starts_with("f_")))
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    while let Some(id) = todo.pop() {
        if seen.insert(id) {
            todo.extend(all.get(&id).map(|f| f.calls.clone()).unwrap_or_default());
        }
    }
    if seen.is_empty() {
        return Err(Error::Gpu(format!(
            "no f_ helper found in the kernel of {name}"
        )));
    }
    Ok(Count {
        name,
        expression: expression.unwrap_or("sin(a); cos(a)").to_string(),
        function: seen.iter().map(|id| all[id].instructions).sum(),
        helpers: seen.len(),
        kernel,
    })
}

/// The counts of every function of [`TABLE5`], in its order.
pub fn table5() -> Result<Vec<Count>> {
    TABLE5.iter().map(|&(name, e)| count(name, e)).collect()
}

/// The record `www/data/table5-instructions.json`: the method, then one object per function.
/// Deterministic (no date), so that a test can compare it with what the code generates now.
pub fn table5_json(counts: &[Count]) -> String {
    let rows: Vec<String> = counts
        .iter()
        .map(|c| {
            format!(
                "    {{ \"name\": \"{}\", \"expression\": \"{}\", \"spirvFunction\": {}, \"spirvFunctions\": {}, \"spirvKernel\": {} }}",
                c.name, c.expression, c.function, c.helpers, c.kernel
            )
        })
        .collect();
    format!(
        "{{\n  \"what\": \"SPIR-V instructions of the WGSL kernel texla generates for each function of the thesis's Table 5 (www/benchmark/bench.js: gpu.map(expression), gpu.sincos), counted natively by naga {NAGA_VERSION} (src/instructions.rs): instructions inside function bodies; spirvFunction: the expression's helpers and what they call (spirvFunctions functions, each once); spirvKernel: the whole fragment shader, unused functions removed\",\n  \"madeBy\": \"cargo run --release -p native_bench -- --instructions --out www/data\",\n  \"rows\": [\n{}\n  ]\n}}\n",
        rows.join(",\n")
    )
}
