//! The page's strings: one catalog per language (`i18n/en.json`, `i18n/zh.json`), looked up by key.
//! A key missing from a catalog shows the key itself, and a native test fails on any such gap.

use std::sync::OnceLock;

pub use outbox_core::lang::Lang;

/// A refusal from the core in the reader's language (the core words it in English).
pub fn message(lang: Lang, text: &str) -> String {
    match lang {
        Lang::En => text.to_owned(),
        Lang::Zh => outbox_core::lang::messages::zh(text),
    }
}

// Minified by build.rs from `i18n/en.json` and `i18n/zh.json`.
pub const EN_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/i18n-en.json"));
pub const ZH_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/i18n-zh.json"));

/// A catalog as parsed: serde_json's map (a B-tree the page has anyway), looked up in place.
type Catalog = serde_json::Map<String, serde_json::Value>;

fn catalog(lang: Lang) -> &'static Catalog {
    static EN: OnceLock<Catalog> = OnceLock::new();
    static ZH: OnceLock<Catalog> = OnceLock::new();
    let (cell, text) = match lang {
        Lang::En => (&EN, EN_JSON),
        Lang::Zh => (&ZH, ZH_JSON),
    };
    // The catalogs are compiled in and checked by a test; a broken one shows keys rather than panicking.
    // Read as a JSON value, not into a typed map: serde's typed reader would pull in Rust's float printer.
    cell.get_or_init(|| match serde_json::from_str(text) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => Catalog::default(),
    })
}

/// The string for `key`.
pub fn t(lang: Lang, key: &str) -> String {
    catalog(lang)
        .get(key)
        .and_then(serde_json::Value::as_str)
        .unwrap_or(key)
        .to_owned()
}

/// The string for `key` with `{0}`, `{1}`, … replaced by `args`.
pub fn tf(lang: Lang, key: &str, args: &[&str]) -> String {
    fill(t(lang, key), args)
}

/// `text` with `{0}`, `{1}`, … replaced by `args` (the levels' words, fetched, fill theirs the same way).
pub fn fill(mut text: String, args: &[&str]) -> String {
    for (i, arg) in args.iter().enumerate() {
        text = text.replace(&format!("{{{i}}}"), arg);
    }
    text
}
