//! The two string catalogs: the same keys, no empty string, a real translation, and every key the UI asks for.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::protocol::{Boundary, CrashMark, Outcome};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod glossary;

fn catalog(lang: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("src/i18n/{lang}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every key the UI code names literally: `t(lang, "key")` and `tf(lang, "key", …)`.
fn keys_used_in(dir: &Path, out: &mut BTreeSet<String>) {
    keys_in(dir, out, &mut BTreeSet::new());
}

/// The page's keys (`t(lang, "…")`) into `page`, the levels' words (`words.t(lang, "…")`, `ctx.t("…")`, fetched
/// with the levels from `src/i18n/levels.json`) into `levels`.
fn keys_in(dir: &Path, page: &mut BTreeSet<String>, levels: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            keys_in(&path, page, levels);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for pattern in ["t(lang, \"", "tf(lang, \"", "ctx.t(\"", "ctx.tf(\""] {
                for (i, _) in text.match_indices(pattern) {
                    let rest = &text[i + pattern.len()..];
                    let method = pattern.starts_with("ctx") || text[..i].ends_with('.');
                    if let Some(end) = rest.find('"') {
                        let set = if method { &mut *levels } else { &mut *page };
                        set.insert(rest[..end].to_owned());
                    }
                }
            }
        }
    }
}

#[test]
fn every_word_a_level_asks_for_exists_in_both_languages() {
    let words: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("src/i18n/levels.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut used = BTreeSet::new();
    keys_in(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut BTreeSet::new(),
        &mut used,
    );
    assert!(
        used.len() > 30,
        "the scan found the levels' keys: {}",
        used.len()
    );
    for lang in ["en", "zh"] {
        let missing: Vec<_> = used
            .iter()
            .filter(|k| words[lang][k.as_str()].is_null())
            .collect();
        assert!(
            missing.is_empty(),
            "{lang}: level words used but not in levels.json: {missing:?}"
        );
    }
}

#[test]
fn both_catalogs_have_every_key_and_no_empty_string() {
    let en = catalog("en");
    let zh = catalog("zh");
    let only_en: Vec<_> = en.keys().filter(|k| !zh.contains_key(*k)).collect();
    let only_zh: Vec<_> = zh.keys().filter(|k| !en.contains_key(*k)).collect();
    assert!(only_en.is_empty(), "missing from zh.json: {only_en:?}");
    assert!(only_zh.is_empty(), "missing from en.json: {only_zh:?}");
    for (lang, cat) in [("en", &en), ("zh", &zh)] {
        for (k, v) in cat {
            assert!(!v.trim().is_empty(), "{lang}.json: {k} is empty");
        }
    }
    let same: Vec<_> = en
        .iter()
        .filter(|(k, v)| zh[*k] == **v)
        .map(|(k, _)| k)
        .collect();
    assert!(same.is_empty(), "not translated: {same:?}");
}

#[test]
fn every_key_the_ui_asks_for_exists() {
    let en = catalog("en");
    let mut used = BTreeSet::new();
    // The page (`src/ui`) and the header it shares with the prerender (`src/first_screen.rs`).
    keys_used_in(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut used,
    );
    // Keys built at run time: boundary explanations, result reasons, picker groups.
    used.extend(
        Boundary::ALL
            .iter()
            .map(|b| format!("boundary.{}", b.name())),
    );
    // Every result the engine can report, from the typed vocabulary (the log's reason is `result.<word>`, one
    // for every block reason). `busy` is left out: only real processes sharing files answer it, never the page's
    // in-memory databases.
    used.extend(
        Outcome::all()
            .into_iter()
            .filter(|o| *o != Outcome::Busy)
            .map(|o| format!("result.{}", o.head())),
    );
    used.extend(CrashMark::ALL.map(|m| format!("result.{m}")));
    // The consumer select offers every consumer by its name.
    used.extend(outbox_core::protocol::Ordering::ALL.iter().flat_map(|o| {
        ["mode", "mode.short", "col.consumer.note"].map(|k| format!("{k}.{}", o.name()))
    }));
    used.extend(
        [
            "group.producer",
            "group.receive",
            "group.relay",
            "group.apply",
        ]
        .map(String::from),
    );
    assert!(
        used.len() > 60,
        "the scan found the UI's keys: {}",
        used.len()
    );
    let missing: Vec<_> = used.iter().filter(|k| !en.contains_key(*k)).collect();
    assert!(
        missing.is_empty(),
        "keys used but not in the catalogs: {missing:?}"
    );
}

/// One word per concept (`outbox_core::lang::glossary`): no synonym the glossary names appears in the Chinese
/// catalog, nor anywhere in the code's Chinese (the diagram's words, the core's refusals), outside the article's
/// own longer words.
#[test]
fn the_chinese_page_uses_one_word_per_concept() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts: Vec<(String, String)> = catalog("zh")
        .into_iter()
        .map(|(k, v)| (format!("zh.json {k}"), v))
        .collect();
    // The panel On PostgreSQL's words, fetched with its recording.
    let panel: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("src/i18n/postgres.json")).unwrap(),
    )
    .unwrap();
    for (k, v) in panel["zh"].as_object().unwrap() {
        texts.push((
            format!("postgres.json {k}"),
            v.as_str().unwrap_or("").to_owned(),
        ));
    }
    fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("glossary.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                for (i, line) in text.lines().enumerate() {
                    out.push((format!("{}:{}", path.display(), i + 1), line.to_owned()));
                }
            }
        }
    }
    sources(&root.join("core/src"), &mut texts);
    sources(&root.join("src"), &mut texts);
    let found: Vec<String> = texts
        .iter()
        .flat_map(|(place, text)| {
            glossary::synonyms(text)
                .into_iter()
                .map(move |s| format!("{place}: {s}"))
        })
        .collect();
    assert!(found.is_empty(), "{found:#?}");
}

/// The panel On PostgreSQL's words (`src/i18n/postgres.json`, fetched with the recording): every key it names,
/// and every key it builds from the recording (a column, a verdict, a hazard and its form), in both languages.
#[test]
fn every_word_the_postgresql_panel_asks_for_exists_in_both_languages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(root.join(path)).unwrap()).unwrap()
    };
    let words = read("src/i18n/postgres.json");
    let recording = read("specs/isolation/interleavings.json");
    let code = std::fs::read_to_string(root.join("src/ui/components/postgres.rs")).unwrap();
    let mut used: BTreeSet<String> = code
        .match_indices("w(doc, lang, \"")
        .filter_map(|(i, p)| {
            let rest = &code[i + p.len()..];
            rest.find('"').map(|end| rest[..end].to_owned())
        })
        .collect();
    used.extend(
        [
            "waiting",
            "completed",
            "cannot",
            "prop.holds",
            "prop.breaks",
        ]
        .map(String::from),
    );
    for row in recording["rows"].as_array().unwrap() {
        let (hazard, form) = row["hazard"].as_str().unwrap().rsplit_once('-').unwrap();
        used.insert(hazard.to_owned());
        used.insert(format!("form.{form}"));
        for cell in row["cells"].as_array().unwrap() {
            used.insert(format!("col.{}", cell["column"].as_str().unwrap()));
            used.insert(cell["verdict"].as_str().unwrap().to_owned());
        }
    }
    assert!(used.len() > 20, "the scan found the panel's keys: {used:?}");
    for lang in ["en", "zh"] {
        let missing: Vec<_> = used
            .iter()
            .filter(|k| words[lang][k.as_str()].as_str().is_none_or(str::is_empty))
            .collect();
        assert!(
            missing.is_empty(),
            "{lang}: words the panel asks for, not in postgres.json: {missing:?}"
        );
    }
}
