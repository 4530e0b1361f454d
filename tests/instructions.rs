//! The thesis's Table 5 instruction counts (native only: naga is a dependency of the `native`
//! feature). Run with `cargo test --features native --test instructions`.
#![cfg(feature = "native")]

use texla::instructions::{table5, table5_json, TABLE5};

#[test]
fn every_function_has_positive_counts() {
    let counts = table5().expect("naga compiles every kernel");
    assert_eq!(counts.len(), TABLE5.len());
    for c in &counts {
        assert!(c.function > 0 && c.helpers > 0, "{}: {c:?}", c.name);
        // The kernel holds the function and the fetch, mask and store around it.
        assert!(c.kernel > c.function, "{}: {c:?}", c.name);
    }
}

#[test]
fn the_record_is_what_the_code_generates_now() {
    let record = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/www/data/table5-instructions.json"
    ))
    .expect("www/data/table5-instructions.json");
    let now = table5_json(&table5().expect("naga compiles every kernel"));
    assert!(
        record == now,
        "www/data/table5-instructions.json is stale: run `cargo run --release -p \
         native_bench -- --instructions --out www/data`\nnow:\n{now}"
    );
}

#[test]
fn the_list_is_the_pages() {
    // Every function of the Rust list is one the page's Table 5 benchmark times.
    let bench = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/www/benchmark/bench.js"
    ))
    .expect("www/benchmark/bench.js");
    let start = bench
        .find("const FUNCTION_BENCH")
        .expect("FUNCTION_BENCH in bench.js");
    let list = &bench[start..start + bench[start..].find("];\n").expect("its end")];
    for (name, _) in TABLE5 {
        assert!(
            list.contains(&format!("\"{name}\"")),
            "{name} is not in FUNCTION_BENCH"
        );
    }
    // ... and none is missing: one quoted name per row, plus the binary ones' expressions.
    let rows = list.matches("[\"").count();
    assert_eq!(rows, TABLE5.len(), "FUNCTION_BENCH has {rows} rows");
}
