//! Embeds the experiment files without their indentation (the page's size counts
//! every byte). Whitespace outside JSON strings is dropped; nothing else changes.

use std::path::Path;

#[path = "build/minify.rs"]
mod minify;
use minify::minify;

fn main() {
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    // The experiment files stay at the top of the repository, where readers and the CLI find them.
    let dir = Path::new("../experiments");
    println!("cargo::rerun-if-changed=../experiments");
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("experiments/")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).expect("readable experiment");
            let target = Path::new(&out_dir).join(entry.file_name());
            std::fs::write(target, minify(&text)).expect("OUT_DIR is writable");
        }
    }
}
