//! Shaders no page shows, as the binary holds them: the files of `shaders/solvers`,
//! `shaders/physics`, `shaders/scene`, `shaders/transfer` and `shaders/stencil`, and the compute
//! reduction (a sum's last pass, which a page shows, is a fragment pass), with their comments
//! and indentation dropped, into OUT_DIR/<folder>/ (the kernels include them from there). Their
//! comments cost the package about 7 KB gzipped; the files keep them for a reader. The kernels
//! the lessons and the explorer show (products, element-wise, reductions, float-float, ...) keep
//! theirs.

use std::{env, fs, path::Path};

fn main() {
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let folders = ["solvers", "physics", "scene", "transfer", "stencil"].map(|f| (f, None));
    for (folder, only) in folders
        .into_iter()
        .chain([("reductions", Some("reduce_compute.wgsl"))])
    {
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
            let code: String = text
                .lines()
                .map(|line| line.split("//").next().unwrap_or("").trim())
                .filter(|line| !line.is_empty())
                .flat_map(|line| [line, "\n"])
                .collect();
            fs::write(to.join(name), code).expect("OUT_DIR is writable");
        }
    }
}
