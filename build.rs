//! Shaders no lesson shows, as the binary holds them: the files of `shaders/solvers`,
//! `shaders/scene` and `shaders/transfer` with their comment lines dropped, into
//! OUT_DIR/<folder>/ (the kernels include them from there). Their comments cost the package
//! about 6 KB gzipped; the files keep them for a reader. The lessons' kernels (products,
//! element-wise, reductions, ...) keep theirs: the page shows them.

use std::{env, fs, path::Path};

fn main() {
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for folder in ["solvers", "scene", "transfer"] {
        let from = Path::new("shaders").join(folder);
        println!("cargo::rerun-if-changed={}", from.display());
        let to = Path::new(&out).join(folder);
        fs::create_dir_all(&to).expect("OUT_DIR is writable");
        for entry in fs::read_dir(&from).expect("a shader folder") {
            let path = entry.expect("a directory entry").path();
            let text = fs::read_to_string(&path).expect("a shader file");
            let code: String = text
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .flat_map(|line| [line, "\n"])
                .collect();
            let name = path.file_name().expect("a file name");
            fs::write(to.join(name), code).expect("OUT_DIR is writable");
        }
    }
}
