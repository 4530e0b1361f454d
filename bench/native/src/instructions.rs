//! `--instructions`: the thesis's Table 5 "Count" column for texla. For each function the page's
//! Table 5 benchmark times, the SPIR-V instructions naga makes of the WGSL kernel texla
//! generates for it (`texla::instructions`), beside the thesis's count of ps_2_0 instructions.
//! Needs no GPU. Writes `table5-instructions.json` into `--out` (the record the page shows is
//! `www/data/table5-instructions.json`; `tests/instructions.rs` checks it is current).

use texla::error::Result;
use texla::instructions::{table5, table5_json, NAGA_VERSION};

/// The thesis's Table 5 counts (instructions of its ps_2_0 functions), where it has the function.
fn thesis_count(name: &str) -> Option<u32> {
    Some(match name {
        "invsqrt" | "inv" => 3,
        "log10" | "exp" => 4,
        "div" | "sqrt" => 5,
        "pow" => 6,
        "sinh" | "cosh" => 8,
        "tanh" => 10,
        "cos" | "sin" => 11,
        "tan" => 15,
        "acos" | "asin" => 16,
        "atan" => 28,
        "atan2" => 32,
        _ => return None,
    })
}

/// Prints the table and writes the record into folder `out`.
pub fn instructions(out: &str) -> Result<()> {
    let counts = table5()?;
    println!(
        "\nThe thesis's Table 5, instruction counts: SPIR-V instructions (inside function bodies) \
         of the WGSL kernel texla generates, compiled by naga {NAGA_VERSION}. function: the \
         expression's helpers and the functions they call; kernel: the whole fragment shader"
    );
    println!(
        "{:12} {:16} {:>9} {:>8} {:>7} {:>16}",
        "function", "expression", "function", "helpers", "kernel", "thesis (ps_2_0)"
    );
    for c in &counts {
        let thesis = thesis_count(c.name).map_or("-".to_string(), |v| v.to_string());
        println!(
            "{:12} {:16} {:9} {:8} {:7} {:>16}",
            c.name, c.expression, c.function, c.helpers, c.kernel, thesis
        );
    }
    let path = std::path::Path::new(out).join("table5-instructions.json");
    std::fs::write(&path, table5_json(&counts)).map_err(|e| {
        texla::error::Error::Argument(format!("cannot write {}: {e}", path.display()))
    })?;
    println!("wrote {}", path.display());
    Ok(())
}
