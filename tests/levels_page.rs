//! The page's own side of its levels: the index its first load carries, and its Chinese words for levels. What
//! the page reads (the bundle, a challenge link, a progress file) is the core's, tested in `core/tests/levels.rs`.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::levels;
use std::path::Path;

mod glossary;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn level_texts() -> Vec<(String, String)> {
    levels::files(&root().join("levels"))
        .unwrap()
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap()))
        .collect()
}

fn words_text() -> String {
    std::fs::read_to_string(root().join("src/i18n/levels.json")).unwrap()
}

/// The page's first load carries an index of the levels (the main page's entry): the same ids, sections and
/// titles as the level files, in their order.
#[test]
fn the_pages_index_of_levels_is_the_level_files() {
    let parsed: Vec<_> = level_texts()
        .iter()
        .map(|(_, text)| levels::parse(text).unwrap())
        .collect();
    assert_eq!(outbox_playground::LEVELS.len(), parsed.len());
    for ((id, section, [en, zh]), level) in outbox_playground::LEVELS.iter().zip(&parsed) {
        assert_eq!(
            (*id, *section, *en, *zh),
            (
                level.id.as_str(),
                level.section.as_str(),
                level.en.title.as_str(),
                level.zh.title.as_str()
            )
        );
    }
}

#[test]
fn the_pages_chinese_words_for_levels_use_the_articles_words() {
    let words: serde_json::Value = serde_json::from_str(&words_text()).unwrap();
    let mut found = Vec::new();
    for (key, text) in words["zh"].as_object().unwrap() {
        for synonym in glossary::synonyms(text.as_str().unwrap()) {
            found.push(format!("{key}: {synonym}"));
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
