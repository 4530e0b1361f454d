//! Shaders no page shows, as the binary holds them: the files of `shaders/solvers`,
//! `shaders/physics`, `shaders/scene`, `shaders/transfer` and `shaders/stencil`, the compute
//! reduction (a sum's last pass, which a page shows, is a fragment pass), the compute A x and
//! the registers product (which neither `kernelSources` nor a lesson shows), with their comments,
//! indentation and the spaces no token needs dropped, into OUT_DIR/<folder>/ (the kernels
//! include them from there). Their comments cost the package about 7 KB gzipped and the spaces
//! 0.5 KB; the files keep them for a reader. The kernels the lessons and the explorer show
//! (products, element-wise, reductions, float-float, ...) keep theirs.

use std::{env, fs, path::Path};

fn main() {
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let folders = ["solvers", "physics", "scene", "transfer", "stencil"].map(|f| (f, None));
    for (folder, only) in folders.into_iter().chain([
        ("reductions", Some("reduce_compute.wgsl")),
        ("products", Some("matvec_tiled.wgsl")),
        ("products", Some("matmul_registers.wgsl")),
    ]) {
        let from = Path::new("shaders").join(folder);
        println!("cargo::rerun-if-changed={}", from.display());
        let to = Path::new(&out).join(folder);
        fs::create_dir_all(&to).expect("OUT_DIR is writable");
        for entry in fs::read_dir(&from).expect("a shader folder") {
            let path = entry.expect("a directory entry").path();
            let name = path.file_name().expect("a file name");
            if only.is_some_and(|only| name != only) {
                continue;
            }
            let text = fs::read_to_string(&path).expect("a shader file");
            let mut code = String::with_capacity(text.len());
            for line in text.lines() {
                let line = line.split("//").next().unwrap_or("").trim();
                if line.starts_with('#') {
                    code.push_str(line); // GLSL's preprocessor: its spaces are meaningful
                } else if !line.is_empty() {
                    squeeze(line, &mut code);
                } else {
                    continue;
                }
                code.push('\n');
            }
            fs::write(to.join(name), code).expect("OUT_DIR is writable");
        }
    }
}

/// Appends `line` without the spaces that separate no two tokens: a space stays only between two
/// word characters (`let x`; a template's `{placeholder}` counts as a word) or two operator
/// characters (`x = -1`, where `=-` could read as one).
fn squeeze(line: &str, out: &mut String) {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let op = |c: char| "+-*/%<>=!&|^~".contains(c);
    let placeholder = |s: &str| {
        let name = s
            .strip_prefix('{')
            .and_then(|s| s.split_once('}'))
            .map(|(n, _)| n);
        name.is_some_and(|n| !n.is_empty() && n.chars().all(|c| word(c) && c != '.'))
    };
    for (i, c) in line.char_indices() {
        if c == ' ' {
            let last = out.chars().last().unwrap_or('\n');
            let after = &line[i + 1..];
            let next = after.chars().next().unwrap_or(' ');
            let word_before =
                word(last) || last == '}' && out.rfind('{').is_some_and(|o| placeholder(&out[o..]));
            let word_after = word(next) || placeholder(after);
            if !(word_before && word_after || op(last) && op(next)) {
                continue;
            }
        }
        out.push(c);
    }
}
