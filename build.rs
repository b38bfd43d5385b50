//! Embeds the page's string catalogs without their indentation (the page's size counts
//! every byte). Whitespace outside JSON strings is dropped; nothing else changes.

use std::path::Path;

#[path = "core/build/minify.rs"]
mod minify;
use minify::minify;

fn main() {
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for lang in ["en", "zh"] {
        let path = format!("src/i18n/{lang}.json");
        println!("cargo::rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).expect("readable catalog");
        std::fs::write(
            Path::new(&out_dir).join(format!("i18n-{lang}.json")),
            minify(&text),
        )
        .expect("OUT_DIR is writable");
    }
}
