//! What the page reads for its levels, all of it untrusted on the way in: the bundle the build writes beside
//! the page (`levels.json`), a challenge link (`#level=…`, a reader's rule carried whole) and a progress file.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::checker::Property;
use outbox_core::levels::{self, Bet, Progress};
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

#[test]
fn the_bundle_holds_every_level_in_file_order_and_both_languages_words() {
    let text = levels::bundle(&level_texts(), &words_text()).unwrap();
    let bundle = levels::read_bundle(&text).unwrap();
    let ids: Vec<&str> = bundle.levels.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids.len(), level_texts().len());
    assert_eq!(ids[0], "dual-write");
    assert!(bundle.levels.last().is_some());
    for lang in ["en", "zh"] {
        assert!(bundle.words[lang]["hint.do"].is_string(), "{lang}");
    }
}

#[test]
fn a_bundle_with_a_word_in_one_language_or_a_twice_used_id_is_refused() {
    let mut words: serde_json::Value = serde_json::from_str(&words_text()).unwrap();
    words["en"]["only.here"] = "x".into();
    let e = levels::bundle(&level_texts(), &words.to_string()).unwrap_err();
    assert!(e.contains("`only.here` is in English only"), "{e}");
    let mut texts = level_texts();
    texts.push(("copy.json".into(), texts[0].1.clone()));
    let e = levels::bundle(&texts, &words_text()).unwrap_err();
    assert!(e.starts_with("copy.json: the id `dual-write`"), "{e}");
    let e = levels::read_bundle("{\"format\":\"other\"}").unwrap_err();
    assert!(e.contains("outbox-playground-levels/1"), "{e}");
}

fn a_challenge() -> serde_json::Value {
    let rule = outbox_core::rule::Rule::new(
        "SELECT event_id, 'apply' FROM waiting WHERE state = 'pending' ORDER BY arrival LIMIT 1",
        outbox_core::rule::RuleEffect::Inside,
    )
    .unwrap();
    let words = serde_json::json!({
        "en": {"title": "t", "claim": "c", "bet_hold": "h", "bet_break": "b", "win": "w", "lesson": "l"},
        "zh": {"title": "标题", "claim": "断言", "bet_hold": "守", "bet_break": "破", "win": "赢", "lesson": "教训"},
    });
    levels::challenge(&rule, words)
}

#[test]
fn a_challenge_link_carries_the_readers_rule_whole() {
    let link = levels::to_link(&a_challenge());
    assert!(link.starts_with("level="));
    let level = levels::from_link(&format!("#{link}")).unwrap();
    assert_eq!(level.id, "challenge");
    assert!(level
        .config
        .rule
        .as_ref()
        .unwrap()
        .sql()
        .contains("ORDER BY arrival"));
    assert_eq!(level.property, Property::ConsumerInvariant);
    // The checker's default bounds.
    assert_eq!((level.config.flows, level.config.events), (2, 3));
}

#[test]
fn a_hand_edited_challenge_link_is_refused_with_what_is_wrong() {
    let link = levels::to_link(&a_challenge());
    let cases = [
        ("#t=abc".to_owned(), "expected #level="),
        ("#level=".to_owned(), "is empty"),
        (format!("{}!", link), "is not base64url"),
        // Cut at a whole number of bytes (four characters are three), so it is the packing that fails.
        (
            link[..6 + (link.len() - 6) / 8 * 4].to_owned(),
            "not a packed level",
        ),
    ];
    for (fragment, expected) in cases {
        let e = levels::from_link(&fragment).unwrap_err();
        assert!(e.starts_with("the challenge link: "), "{e}");
        assert!(e.contains(expected), "{fragment}: {e}");
    }
    // Well packed, but not a level the page can play: refused by the level's own checks, the field named.
    let mut bad = a_challenge();
    bad["flows"] = 9.into();
    let e = levels::from_link(&levels::to_link(&bad)).unwrap_err();
    assert!(e.contains("flows must be from 1 to 3, got 9"), "{e}");
    let mut bad = a_challenge();
    bad["consumer"]["rule"] = "DELETE FROM inbox".into();
    let e = levels::from_link(&levels::to_link(&bad)).unwrap_err();
    assert!(e.contains("field `consumer`"), "{e}");
}

#[test]
fn progress_round_trips_and_merges_by_solved_best_and_latest_bet() {
    let mut mine = Progress::default();
    mine.record_win("greater-than", 6);
    mine.record_win("greater-than", 5);
    mine.record_bet("strict", Bet::Hold);
    let back = Progress::parse(&mine.to_json()).unwrap();
    assert_eq!(back, mine);
    assert_eq!(back.levels["greater-than"].best, Some(5));
    let mut theirs = Progress::default();
    theirs.record_win("greater-than", 4);
    theirs.record_win("dual-write", 1);
    theirs.record_bet("strict", Bet::Break(Property::NoLoss));
    mine.merge(theirs);
    assert_eq!(mine.levels["greater-than"].best, Some(4));
    assert!(mine.levels["dual-write"].solved);
    assert_eq!(
        mine.levels["strict"].bet,
        Some(Bet::Break(Property::NoLoss))
    );
    assert!(!mine.levels["strict"].solved);
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
fn bets_are_counted_right_against_what_each_level_does() {
    let truth = [
        ("dual-write".to_string(), Some(Property::NoLoss)),
        (
            "greater-than".to_string(),
            Some(Property::ConsumerInvariant),
        ),
        ("strict".to_string(), None),
        (
            "effect-outside".to_string(),
            Some(Property::ConsumerInvariant),
        ),
        ("skip-blocked".to_string(), Some(Property::Completion)),
    ];
    let mut p = Progress::default();
    assert_eq!(p.bets(&truth), (0, 0));
    p.record_bet("dual-write", Bet::Break(Property::NoLoss)); // right
    p.record_bet("greater-than", Bet::Breaks); // right: the property left open
    p.record_bet("strict", Bet::Break(Property::NoLoss)); // wrong: it holds
    p.record_bet("effect-outside", Bet::Hold); // wrong
    p.record_bet("skip-blocked", Bet::Skip); // not a bet
    p.record_bet("not-a-level", Bet::Hold); // not counted
                                            // Nothing is counted before the reader has seen the answer: the count would give it away.
    assert_eq!(p.bets(&truth), (0, 0));
    p.record_win("dual-write", 1);
    p.record_win("greater-than", 4);
    p.record_revealed("strict");
    p.record_revealed("effect-outside");
    p.record_revealed("skip-blocked");
    p.record_revealed("not-a-level");
    assert_eq!(p.bets(&truth), (2, 4));
    // The open bet is kept in the file as `break`.
    let back = Progress::parse(&p.to_json()).unwrap();
    assert_eq!(back.levels["greater-than"].bet, Some(Bet::Breaks));
    assert_eq!(back.bets(&truth), (2, 4));
}

#[test]
fn a_bad_progress_file_is_refused_with_what_is_wrong() {
    let cases = [
        ("[]", "object"),
        (
            "{\"format\":\"outbox-playground-trace/1\"}",
            "field `format`",
        ),
        (
            "{\"format\":\"outbox-playground-progress/1\",\"levels\":{\"a\":{\"best\":0}}}",
            "level `a`: field `best`",
        ),
        (
            "{\"format\":\"outbox-playground-progress/1\",\"levels\":{\"a\":{\"bet\":\"maybe\"}}}",
            "field `bet`",
        ),
        (
            "{\"format\":\"outbox-playground-progress/1\",\"levels\":{\"a\":{\"won\":true}}}",
            "unknown field `won`",
        ),
        ("not json", "not valid JSON"),
    ];
    for (text, expected) in cases {
        let e = Progress::parse(text).unwrap_err();
        assert!(e.contains(expected), "{text}: {e}");
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
