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
    levels_index(&out_dir);
}

/// The levels' index for the page's first load (the main page's entry to the levels, and each experiment's link to
/// the levels of its section): id, section and title in both languages of `levels/*.json`, in file order. The
/// levels themselves stay out of the first load; `tests/levels_page.rs` checks this index against them.
fn levels_index(out_dir: &str) {
    println!("cargo::rerun-if-changed=levels");
    let mut names: Vec<_> = std::fs::read_dir("levels")
        .expect("levels/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    let mut out = String::from("&[\n");
    for path in names {
        let text = std::fs::read_to_string(&path).expect("readable level");
        let id = string_after(&text, "\"id\"", 0).expect("a level has an id");
        let section = string_after(&text, "\"section\"", 0).expect("a level has a section");
        let en = string_after(&text, "\"title\"", 0).expect("an English title");
        let zh = string_after(&text, "\"title\"", 1).expect("a Chinese title");
        out.push_str(&format!("    ({id:?}, {section:?}, [{en:?}, {zh:?}]),\n"));
    }
    out.push(']');
    std::fs::write(Path::new(out_dir).join("levels_index.rs"), out).expect("OUT_DIR is writable");
}

/// The JSON string value after the `nth` occurrence of `key` (a level file's own simple strings: `\"` and `\\`
/// escapes only).
fn string_after(text: &str, key: &str, nth: usize) -> Option<String> {
    let at = text.match_indices(key).nth(nth)?.0 + key.len();
    let rest = text[at..]
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => value.push(chars.next()?),
            c => value.push(c),
        }
    }
    None
}
