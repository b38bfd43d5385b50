//! Embeds the experiment files and the page's string catalogs without their indentation (the page's size counts
//! every byte). Whitespace outside JSON strings is dropped; nothing else changes.

use std::path::Path;

fn minify(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

fn main() {
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let dir = Path::new("experiments");
    println!("cargo::rerun-if-changed=experiments");
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
    for lang in ["en", "zh"] {
        let path = format!("src/ui/i18n/{lang}.json");
        println!("cargo::rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).expect("readable catalog");
        std::fs::write(
            Path::new(&out_dir).join(format!("i18n-{lang}.json")),
            minify(&text),
        )
        .expect("OUT_DIR is writable");
    }
}
