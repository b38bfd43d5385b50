//! The break-it levels (`levels/*.json`, docs/levels.md): each is held to the checker by `experiments levels
//! --check`, which fails a level the checker disagrees with; the Chinese words keep only the Latin words the
//! article keeps. What needs only the core (a bad level refused, the hints, the code under attack) is tested in
//! `core/tests/levels.rs`.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::lang::glossary::KEPT;
use serde_json::{json, Value};
use std::path::Path;

mod common;
mod glossary;

fn level_files() -> Vec<std::path::PathBuf> {
    outbox_core::levels::files(&root().join("levels")).unwrap()
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("levels").join(name)).unwrap())
        .unwrap()
}

fn levels_check(dir: &Path) -> (i32, String) {
    let (code, out, err) = common::cli(&["levels", "--check", &dir.to_string_lossy()]);
    (code, out + &err)
}

#[test]
fn every_level_is_held_to_the_checker() {
    let (code, out) = levels_check(&root().join("levels"));
    assert_eq!(code, 0, "{out}");
    let files = level_files();
    assert!(
        files.len() >= 8,
        "a level per wrong turn, power loss and the protocol"
    );
    assert!(
        out.contains(&format!("{} passed, 0 failed", files.len())),
        "{out}"
    );
    // Each wrong turn breaks its property at a par the checker computed; the protocol holds over the state
    // count of `experiments check` on the page's default configuration.
    assert!(
        out.contains("dual-write (§2, The dual write): no_loss broken in 1 move(s)"),
        "{out}"
    );
    assert!(
        out.contains("dedupe-only (§5, Dedupe only): consumer_invariant broken in 3 move(s)"),
        "{out}"
    );
    assert!(
        out.contains("strict (§9, The protocol): unbreakable, 10464 states"),
        "{out}"
    );
}

#[test]
fn a_level_the_checker_disagrees_with_fails() {
    let dir = std::env::temp_dir().join(format!("levels-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, v: &Value| {
        std::fs::write(dir.join(name), serde_json::to_string_pretty(v).unwrap()).unwrap()
    };
    let mut wrong_property = read("02-dedupe-only.json");
    wrong_property["break"] = json!("no_loss");
    write("a.json", &wrong_property);
    let mut not_unbreakable = read("03-greater-than.json");
    not_unbreakable["unbreakable"] = json!(true);
    write("b.json", &not_unbreakable);
    let mut unbroken = read("07-strict.json");
    unbroken["unbreakable"] = json!(false);
    unbroken["flows"] = json!(1);
    unbroken["events"] = json!(2);
    write("c.json", &unbroken);
    write("d.json", &read("01-dual-write.json"));
    write("e.json", &read("01-dual-write.json"));
    let (code, out) = levels_check(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 1, "{out}");
    for fault in [
        "FAIL   a.json: dedupe-only (§5, Dedupe only): the shortest break is of consumer_invariant, not no_loss",
        "FAIL   b.json: greater-than (§5, Greater than last_seq) is marked unbreakable, but advance A1",
        "FAIL   c.json: strict (§9, The protocol): nothing within its bounds breaks consumer_invariant",
        "ok     d.json",
        "FAIL   e.json: the id `dual-write` is another level's too",
        "1 passed, 4 failed",
    ] {
        assert!(out.contains(fault), "missing «{fault}» in:\n{out}");
    }
}

/// The Chinese words use the article's words: no Latin word but those it keeps (`KEPT`), no glossary synonym.
#[test]
fn the_chinese_words_keep_only_the_articles_latin_words() {
    let mut found = Vec::new();
    for file in level_files() {
        let level = outbox_core::levels::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let w = &level.zh;
        let goal = w.goal.clone().unwrap_or_default();
        for text in [
            &w.title,
            &w.claim,
            &goal,
            &w.bet_hold,
            &w.bet_break,
            &w.win,
            &w.lesson,
        ] {
            for word in text.split(|c: char| !(c.is_ascii_alphabetic() || c == '_')) {
                if word.len() > 1 && !KEPT.contains(&word) {
                    found.push(format!("{}: {word}", file.display()));
                }
            }
            for synonym in glossary::synonyms(text) {
                found.push(format!("{}: {synonym}", file.display()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
