//! The break-it levels as the core reads them, tested by the core's own tests (so that a mutant of `levels/` is
//! caught without the workspace): a bad level file refused with what is wrong, each level won by following the
//! hints in its par, the protocol's level safe from anywhere, the code under attack; and what the page reads,
//! all untrusted: the bundle the build writes (`levels.json`), a challenge link (`#level=…`) and a progress file.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::checker::Property;
use outbox_core::levels::{self, Bet, Progress};
use serde_json::{json, Value};
use std::path::Path;

/// The repository's root, where `levels/` and the page's words are.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn level_files() -> Vec<std::path::PathBuf> {
    levels::files(&root().join("levels")).unwrap()
}

fn read(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("levels").join(name)).unwrap())
        .unwrap()
}

fn level_texts() -> Vec<(String, String)> {
    level_files()
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

/// A challenge's rule may block what waits at a gap: the code under attack shows that branch too, since the
/// code is read from a run that relays an event before the one it follows.
#[test]
fn a_rule_that_blocks_at_a_gap_shows_the_block_in_its_code() {
    use outbox_core::levels::code::{Code, Kind};
    let rule = outbox_core::rule::Rule::new(
        "SELECT event_id, CASE WHEN problem IS NULL THEN 'apply' ELSE 'block' END FROM waiting ORDER BY seq LIMIT 1",
        outbox_core::rule::RuleEffect::Inside,
    )
    .unwrap();
    let level =
        levels::from_value(levels::challenge(&rule, a_challenge()["words"].clone())).unwrap();
    let code = Code::of(&level.config).unwrap();
    let apply = code.block(Kind::Apply).unwrap();
    assert!(
        apply
            .lines
            .iter()
            .any(|l| l.sql.starts_with("UPDATE inbox SET state='blocked'")),
        "{:#?}",
        apply.lines
    );
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

/// Each limit on what the page reads is exact, not one off: a level's size, its id's length, a word's length
/// (counted in characters, so Chinese is not cut at a third), a challenge link's length and a progress file's
/// size; each just inside is read, each just past is refused, saying what is wrong.
#[test]
fn a_levels_limits_are_exact() {
    let good = read("02-dedupe-only.json");
    let padded = |n: usize| {
        let text = good.to_string();
        format!("{text}{}", " ".repeat(n - text.len()))
    };
    let max = levels::MAX_LEVEL_BYTES;
    assert!(levels::parse(&padded(max)).is_ok());
    assert_eq!(
        levels::parse(&padded(max + 1)).unwrap_err(),
        format!("the level is {} bytes; at most {max} are allowed", max + 1)
    );
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut v = good.clone();
        edit(&mut v);
        levels::from_value(v)
    };
    assert_eq!(
        with(&|v| v["id"] = json!("a".repeat(40))).unwrap().id.len(),
        40
    );
    for id in [String::new(), "a".repeat(41)] {
        let e = with(&|v| v["id"] = json!(id)).unwrap_err();
        assert!(e.starts_with("field `id` must be 1–40"), "{id:?}: {e}");
    }
    let claim = with(&|v| v["words"]["zh"]["claim"] = json!("字".repeat(600))).unwrap();
    assert_eq!(claim.zh.claim.chars().count(), 600);
    let e = with(&|v| v["words"]["zh"]["claim"] = json!("字".repeat(601))).unwrap_err();
    assert_eq!(
        e,
        "field `words.zh`: field `claim` is 601 characters; at most 600"
    );
    // A link's payload may be twice a level's bytes: one that long is read (and found not to be a level), one
    // character more is refused for its length alone.
    let long = |n: usize| levels::from_link(&format!("#level={}", "A".repeat(n))).unwrap_err();
    assert!(
        long(2 * max).contains("not a packed level"),
        "{}",
        long(2 * max)
    );
    assert_eq!(
        long(2 * max + 1),
        format!(
            "the challenge link: {} characters is too long for a level",
            2 * max + 1
        )
    );
    // A progress file may be 256 KiB.
    let text = Progress::default().to_json();
    let progress = |n: usize| Progress::parse(&format!("{text}{}", " ".repeat(n - text.len())));
    assert_eq!(progress(256 * 1024), Ok(Progress::default()));
    assert_eq!(
        progress(256 * 1024 + 1).unwrap_err(),
        "262145 bytes is too large for a progress file"
    );
}

/// A merge keeps what either side has seen: a level revealed on either side, or solved on this one, stays so;
/// and the unbreakable level is solved by its proof, without a count of moves.
#[test]
fn a_merge_keeps_what_either_side_has_seen() {
    let mut mine = Progress::default();
    mine.record_revealed("strict");
    mine.record_win("dual-write", 2);
    let mut theirs = Progress::default();
    theirs.record_revealed("greater-than");
    theirs.record_bet("strict", Bet::Hold);
    theirs.record_bet("dual-write", Bet::Skip);
    mine.merge(theirs);
    assert!(mine.levels["strict"].revealed);
    assert!(mine.levels["greater-than"].revealed);
    assert!(mine.levels["dual-write"].solved);
    assert_eq!(mine.levels["dual-write"].best, Some(2));
    // The unbreakable level is solved by its proof, without a count of moves.
    let mut p = Progress::default();
    p.record_solved("strict");
    let solved = levels::Record {
        solved: true,
        ..Default::default()
    };
    assert_eq!(p.levels["strict"], solved);
}

/// A bet that names a property is right only of a level that breaks that one; "it breaks" of any that breaks.
#[test]
fn a_bet_on_a_property_is_right_only_when_that_property_breaks() {
    let no_loss = Bet::Break(Property::NoLoss);
    assert_eq!(no_loss.right(Some(Property::NoLoss)), Some(true));
    assert_eq!(no_loss.right(Some(Property::Completion)), Some(false));
    assert_eq!(no_loss.right(None), Some(false));
    assert_eq!(Bet::Breaks.right(Some(Property::Completion)), Some(true));
    assert_eq!(Bet::Breaks.right(None), Some(false));
    assert_eq!(Bet::Hold.right(None), Some(true));
    assert_eq!(Bet::Hold.right(Some(Property::NoLoss)), Some(false));
    assert_eq!(Bet::Skip.right(None), None);
}

#[test]
fn a_bad_level_is_refused_with_what_is_wrong() {
    let good = read("02-dedupe-only.json");
    assert!(outbox_core::levels::from_value(good.clone()).is_ok());
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|v| v["colour"] = json!("red")),
            "unknown field `colour`",
        ),
        (
            Box::new(|v| v["format"] = json!("level/0")),
            "field `format` must be \"outbox-playground-level/1\", got \"level/0\"",
        ),
        (
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("format");
            }),
            "missing field `format`",
        ),
        (
            Box::new(|v| v["id"] = json!("Dedupe Only")),
            "field `id` must be 1–40 lower-case letters",
        ),
        (
            Box::new(|v| v["section"] = json!("5")),
            "field `section` must name the article's section",
        ),
        (
            Box::new(|v| v["consumer"] = json!({"ordering": "fifo"})),
            "field `consumer`",
        ),
        (
            Box::new(|v| v["consumer"] = json!({"ordering": "rule", "rule": "DELETE FROM inbox"})),
            "field `consumer`: field `rule`",
        ),
        (
            Box::new(|v| v["producer"] = json!("twice")),
            "field `producer`",
        ),
        (
            Box::new(|v| v["flows"] = json!(4)),
            "flows must be from 1 to 3, got 4",
        ),
        (
            Box::new(|v| v["events"] = json!(-1)),
            "field `events` must be from 0 to 3, got -1",
        ),
        (
            Box::new(|v| v["schema2"] = json!(["Z9"])),
            "schema2 names `Z9`",
        ),
        (
            Box::new(|v| v["break"] = json!("rule_answers")),
            "field `break` must be `consumer_invariant`, `no_loss` or `completion`",
        ),
        (Box::new(|v| v["break"] = json!("order")), "field `break`"),
        (
            Box::new(|v| {
                v.as_object_mut().unwrap().remove("words");
            }),
            "missing field `words`",
        ),
        (
            Box::new(|v| {
                v["words"].as_object_mut().unwrap().remove("zh");
            }),
            "field `words`: missing `zh`",
        ),
        (
            Box::new(|v| v["words"]["fr"] = json!({})),
            "field `words`: unknown language `fr`",
        ),
        (
            Box::new(|v| v["words"]["zh"]["title"] = json!("  ")),
            "field `words.zh`: field `title` is empty",
        ),
        (
            Box::new(|v| {
                v["words"]["en"].as_object_mut().unwrap().remove("lesson");
            }),
            "field `words.en`: missing field `lesson`",
        ),
        (
            Box::new(|v| v["words"]["en"]["goal"] = json!(" ")),
            "field `words.en`: field `goal` is empty",
        ),
        (
            Box::new(|v| v["words"]["zh"]["goal"] = json!(7)),
            "field `words.zh`: field `goal` must be a string",
        ),
    ];
    for (edit, want) in cases {
        let mut v = good.clone();
        edit(&mut v);
        match outbox_core::levels::from_value(v) {
            Ok(_) => panic!("accepted a level that should fail with «{want}»"),
            Err(e) => assert!(e.contains(want), "«{e}» does not say «{want}»"),
        }
    }
    let huge = format!("{{\"format\": \"{}\"}}", "x".repeat(70_000));
    assert!(outbox_core::levels::parse(&huge)
        .unwrap_err()
        .contains("at most 65536"));
    assert!(outbox_core::levels::parse("{")
        .unwrap_err()
        .contains("not valid JSON"));
}

/// Every level says what the reader must make happen, in both languages: one sentence, in the imperative.
#[test]
fn every_level_has_a_goal_in_words() {
    for file in level_files() {
        let level = outbox_core::levels::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for (lang, w) in [("en", &level.en), ("zh", &level.zh)] {
            let goal = w
                .goal
                .as_deref()
                .unwrap_or_else(|| panic!("{}: no {lang} goal", file.display()));
            let opening = if lang == "en" { "Make " } else { "" };
            assert!(goal.starts_with(opening), "{}: {goal}", file.display());
            assert_eq!(
                goal.matches(['.', '。']).count(),
                1,
                "{}: one sentence: {goal}",
                file.display()
            );
        }
    }
}

fn levels() -> Vec<outbox_core::levels::Level> {
    level_files()
        .iter()
        .map(|f| outbox_core::levels::parse(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect()
}

/// The par: the length of the checker's shortest history from the start, in moves.
fn par(level: &outbox_core::levels::Level) -> usize {
    use outbox_core::checker::{Search, Verdict};
    let mut search = Search::new(level.config.clone()).unwrap();
    match search.finish().unwrap() {
        Verdict::Violated(c) => c.moves.len(),
        Verdict::Holds => panic!("{} holds", level.id),
    }
}

/// Follows hints from where `play` stands until a property breaks; the moves it took.
fn follow_hints(play: &mut outbox_core::checker::Play) -> usize {
    use outbox_core::checker::Hint;
    let mut taken = 0;
    while play.broken().is_none() {
        match play.hint().unwrap() {
            Hint::Break { next, .. } => {
                play.make(next).unwrap();
                taken += 1;
            }
            Hint::Safe { .. } => panic!("no break reachable after {taken} hinted moves"),
        }
        assert!(taken <= 12, "hints go round in circles");
    }
    taken
}

/// A reader who makes the hinted move every time wins each level in exactly its par, breaking the level's
/// property; the first hint already says how many moves are left.
#[test]
fn following_the_hints_wins_each_level_in_its_par() {
    use outbox_core::checker::{Hint, Play};
    for level in levels().iter().filter(|l| !l.unbreakable) {
        let par = par(level);
        let mut play = Play::new(level.config.clone()).unwrap();
        let Hint::Break {
            moves, violation, ..
        } = play.hint().unwrap()
        else {
            panic!("{}: no hint at the start", level.id)
        };
        assert_eq!(
            (moves, violation.property),
            (par, level.property),
            "{}",
            level.id
        );
        assert_eq!(follow_hints(&mut play), par, "{}", level.id);
        assert_eq!(
            play.broken().unwrap().property,
            level.property,
            "{}",
            level.id
        );
        assert_eq!(play.history().len(), par);
    }
}

/// Whether some history of fewer than `depth` more moves from where `play` stands breaks a property: every
/// offered move tried, and taken back.
fn breaks_within(play: &mut outbox_core::checker::Play, depth: usize) -> bool {
    if play.broken().is_some() {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let here = play.history().len();
    for m in play.moves() {
        play.make(m).unwrap();
        let found = breaks_within(play, depth - 1);
        play.back_to(here).unwrap();
        if found {
            return true;
        }
    }
    false
}

/// From a detour (the first offered move that is not the hint's), the hint counts the fewest moves left: every
/// shorter history from there, tried one by one, breaks nothing, and following the hints takes exactly that many.
/// Where the detour closed every way, the hint says nothing can break, and nothing does.
#[test]
fn a_hint_from_a_detour_is_the_fewest_moves_from_there() {
    use outbox_core::checker::{Hint, Play};
    let mut detours = 0;
    for level in levels().iter().filter(|l| !l.unbreakable) {
        let mut play = Play::new(level.config.clone()).unwrap();
        // Hinted moves until one is offered beside the hint: take that one instead.
        let mut detoured = false;
        while !detoured && play.broken().is_none() {
            let Hint::Break { next, .. } = play.hint().unwrap() else {
                panic!("{}", level.id)
            };
            let here = play.history().len();
            let other = play.moves().into_iter().find(|m| {
                if *m == next {
                    return false;
                }
                let breaks = play.make(*m).unwrap().is_some();
                play.back_to(here).unwrap();
                !breaks
            });
            match other {
                Some(m) => {
                    play.make(m).unwrap();
                    detoured = true;
                }
                None => {
                    play.make(next).unwrap();
                }
            }
        }
        if !detoured {
            eprintln!(
                "{}: no move beside the hint's that breaks nothing",
                level.id
            );
            continue;
        }
        detours += 1;
        let moves = match play.hint().unwrap() {
            Hint::Break { moves, .. } => moves,
            // The detour closed the way (the dual write's only event produced safely): the hint says so,
            // and indeed nothing breaks in the next moves.
            Hint::Safe { .. } => {
                assert!(
                    !breaks_within(&mut play, 4),
                    "{}: safe, yet it breaks",
                    level.id
                );
                continue;
            }
        };
        assert!(
            !breaks_within(&mut play, moves - 1),
            "{}: a shorter way than {moves}",
            level.id
        );
        assert_eq!(follow_hints(&mut play), moves, "{}", level.id);
    }
    assert!(detours >= 5, "{detours} levels had a detour");
}

/// The protocol's level: from the start, and from wherever a reader stands, nothing breaks it, over the states
/// `experiments check` counts on its bounds.
#[test]
fn the_protocols_level_is_safe_from_anywhere() {
    use outbox_core::checker::{Hint, Play, Search};
    let level = levels().into_iter().find(|l| l.unbreakable).unwrap();
    let mut search = Search::new(level.config.clone()).unwrap();
    search.finish().unwrap();
    let mut play = Play::new(level.config.clone()).unwrap();
    assert_eq!(
        play.hint().unwrap(),
        Hint::Safe {
            states: search.counts().states,
            transitions: search.counts().transitions
        }
    );
    for _ in 0..3 {
        let m = play.moves()[0];
        play.make(m).unwrap();
    }
    assert!(
        matches!(play.hint().unwrap(), Hint::Safe { states, .. } if states < search.counts().states)
    );
}

/// Only the offered moves are made; a won game takes no more moves until one is taken back.
#[test]
fn a_game_takes_only_the_moves_it_offers() {
    use outbox_core::checker::{Action, Move, Play};
    let level = levels()
        .into_iter()
        .find(|l| l.id == "dedupe-only")
        .unwrap();
    let mut play = Play::new(level.config.clone()).unwrap();
    let apply = Move {
        action: Action::Apply(0),
        crash: None,
    };
    let e = play.make(apply).unwrap_err();
    assert_eq!(e, "`apply A` is not a move here");
    assert_eq!(
        play.moves().iter().map(|m| m.kind()).collect::<Vec<_>>(),
        ["advance"]
    );
    while play.broken().is_none() {
        let Ok(outbox_core::checker::Hint::Break { next, .. }) = play.hint() else {
            panic!()
        };
        play.make(next).unwrap();
    }
    assert!(play.moves().is_empty());
    assert!(play.make(apply).unwrap_err().contains("the game is over"));
    let won = play.trace();
    play.back_to(1).unwrap();
    assert!(play.broken().is_none() && !play.moves().is_empty());
    assert_eq!(play.trace().steps.len(), 1);
    assert_eq!(won.steps.len(), 3);
}

/// The code under attack is the statements the level's processes run: the producer's on the levels that attack
/// it, the relay's and the apply's everywhere, the reader's rule as its SQL; and a move's own statements light
/// the lines it ran, the exit marking where it cut them.
#[test]
fn the_code_under_attack_is_what_the_levels_processes_run() {
    use outbox_core::checker::{Action, Move};
    use outbox_core::levels::code::{Code, Kind};
    use outbox_core::protocol::{Boundary, Location};
    use outbox_core::trace::Session;
    let all = levels();
    let kinds = |id: &str| -> Vec<&'static str> {
        let level = all.iter().find(|l| l.id == id).unwrap();
        let code = Code::of(&level.config).unwrap();
        code.blocks.iter().map(|b| b.kind.name()).collect()
    };
    assert_eq!(
        kinds("dual-write"),
        ["produce", "unsafe_produce", "relay", "apply"]
    );
    // The dedupe-only consumer applies as it receives: its apply runs nothing.
    assert_eq!(kinds("dedupe-only"), ["relay"]);
    assert_eq!(kinds("arrival-queue"), ["relay", "rule", "apply"]);
    assert_eq!(kinds("power-normal"), ["produce", "relay", "apply"]);

    let sqls = |b: &outbox_core::levels::code::Block| -> Vec<String> {
        b.lines.iter().map(|l| l.sql.clone()).collect()
    };
    let dual = all.iter().find(|l| l.id == "dual-write").unwrap();
    let code = Code::of(&dual.config).unwrap();
    // The wrong way commits the state and never writes the outbox row; the right way writes both before COMMIT.
    let unsafe_lines = sqls(code.block(Kind::UnsafeProduce).unwrap());
    assert!(unsafe_lines
        .iter()
        .any(|l| l.starts_with("INSERT INTO flow")));
    assert!(!unsafe_lines
        .iter()
        .any(|l| l.starts_with("INSERT INTO outbox")));
    let safe = sqls(code.block(Kind::Produce).unwrap());
    let outbox = safe
        .iter()
        .position(|l| l.starts_with("INSERT INTO outbox"))
        .unwrap();
    assert_eq!(safe.last().map(String::as_str), Some("COMMIT"));
    assert!(outbox < safe.len() - 1);

    let rule = all.iter().find(|l| l.id == "arrival-queue").unwrap();
    let code = Code::of(&rule.config).unwrap();
    let text = rule.config.rule.as_ref().unwrap().sql().to_owned();
    assert_eq!(
        sqls(code.block(Kind::Rule).unwrap()).join("\n"),
        text.trim_end()
    );

    // The strict consumer: projection, effect and applied mark between one BEGIN and its COMMIT.
    let strict = all.iter().find(|l| l.id == "strict").unwrap();
    let code = Code::of(&strict.config).unwrap();
    let apply = sqls(code.block(Kind::Apply).unwrap());
    assert_eq!(apply.first().map(String::as_str), Some("BEGIN IMMEDIATE"));
    assert_eq!(apply.last().map(String::as_str), Some("COMMIT"));
    for table in [
        "INSERT INTO projection",
        "INSERT INTO effect",
        "UPDATE inbox SET state='applied'",
    ] {
        assert!(
            apply.iter().any(|l| l.starts_with(table)),
            "{table} in {apply:?}"
        );
    }

    // A move that exits after the effect: it ran the apply up to the applied mark, and the cut is there.
    let mut session = Session::create(&Location::memory(), strict.config.setup()).unwrap();
    session.set_sql_logging(true);
    let a1 = outbox_core::checker::config::Ev { flow: 0, seq: 1 };
    let made = |action| Move {
        action,
        crash: None,
    };
    // The producer is not under attack on this level: its move lights nothing; the relay lights its lines.
    let produce = made(Action::Advance(a1));
    let report = session.step(&produce.step(&strict.config));
    assert_eq!(code.ran(&produce, &report.sql), Default::default());
    let relay = made(Action::Relay(a1));
    let report = session.step(&relay.step(&strict.config));
    let ran = code.ran(&relay, &report.sql);
    assert_eq!(ran.kind, Some(Kind::Relay));
    assert_eq!(
        ran.lines.len(),
        code.block(Kind::Relay).unwrap().lines.len()
    );
    assert_eq!(ran.cut, None);
    let exit = Move {
        action: Action::Apply(0),
        crash: Some(Boundary::ApplyAfterEffect),
    };
    let report = session.step(&exit.step(&strict.config));
    let ran = code.ran(&exit, &report.sql);
    assert_eq!(ran.kind, Some(Kind::Apply));
    let cut = ran.cut.expect("the exit cut the apply");
    assert!(
        apply[cut].starts_with("UPDATE inbox SET state='applied'"),
        "{}",
        apply[cut]
    );
    assert!(
        !ran.lines.contains(&(apply.len() - 1)),
        "COMMIT did not run"
    );
    assert!(ran.lines.contains(&0));
}

/// Every statement a move runs is a line of its block, lit, in the block's order: on each level, the history the
/// code is read from (`code::script`: an event relayed before the one it follows, so the apply meets a gap; a resend where the
/// level allows one), move by move. On a rule's level the apply lights the rule. And each branch is shown once:
/// no line of a block could go with every run still in it. (The same runs make the blocks, so this checks the
/// lighting and the merge, not which branches the history reaches; the unsafe producer's block is not played.)
#[test]
fn every_statement_a_move_runs_is_lit_in_its_block() {
    use outbox_core::levels::code::{Code, Kind};
    use outbox_core::protocol::Location;
    use outbox_core::trace::Session;
    for level in levels() {
        let config = &level.config;
        let code = Code::of(config).unwrap();
        let mut session = Session::create(&Location::memory(), config.setup()).unwrap();
        for step in config.prelude() {
            session.step(&step);
        }
        session.set_sql_logging(true);
        let moves = outbox_core::levels::code::script(config);
        let mut seen = Vec::new();
        let mut runs: Vec<(Kind, Vec<(outbox_core::protocol::Role, String)>)> = Vec::new();
        for m in &moves {
            let report = session.step(&m.step(config));
            let ran = code.ran(m, &report.sql);
            let Some(kind) = ran.kind else { continue };
            seen.push(kind);
            // What the move ran, by the block of its kind of move (an apply that asked the rule ran the apply).
            let logged: Vec<(outbox_core::protocol::Role, String)> = report
                .sql
                .iter()
                .filter(|l| !l.template.is_empty())
                .map(|l| (l.db, l.template.clone()))
                .collect();
            runs.push((Kind::of(m).unwrap(), logged.clone()));
            let block = code.block(kind).unwrap();
            if kind == Kind::Rule {
                assert_eq!(ran.lines.len(), block.lines.len(), "{}", level.id);
                continue;
            }
            let lit: Vec<(outbox_core::protocol::Role, String)> = ran
                .lines
                .iter()
                .map(|&i| (block.lines[i].db, block.lines[i].sql.clone()))
                .collect();
            assert_eq!(lit, logged, "{}: {m:?}", level.id);
            assert!(
                ran.lines.windows(2).all(|w| w[0] < w[1]),
                "{}: {:?}",
                level.id,
                ran.lines
            );
        }
        assert!(seen.contains(&Kind::Relay), "{}: {seen:?}", level.id);
        let within = |run: &[(outbox_core::protocol::Role, String)],
                      lines: &[(outbox_core::protocol::Role, String)]| {
            let mut rest = lines.iter();
            run.iter().all(|l| rest.any(|k| k == l))
        };
        for block in code
            .blocks
            .iter()
            .filter(|b| runs.iter().any(|(k, _)| *k == b.kind))
        {
            let lines: Vec<_> = block.lines.iter().map(|l| (l.db, l.sql.clone())).collect();
            for k in 0..lines.len() {
                let mut shorter = lines.clone();
                shorter.remove(k);
                assert!(
                    runs.iter()
                        .any(|(kind, run)| *kind == block.kind && !within(run, &shorter)),
                    "{} {}: line {k} ({}) is no run's",
                    level.id,
                    block.kind.name(),
                    lines[k].1
                );
            }
        }
        let rule = config.rule.is_some();
        assert_eq!(seen.contains(&Kind::Rule), rule, "{}: {seen:?}", level.id);
        // Without a rule an apply lights the apply, where the consumer has one (dedupe-only applies on arrival).
        if !rule {
            assert_eq!(
                seen.contains(&Kind::Apply),
                code.block(Kind::Apply).is_some(),
                "{}: {seen:?}",
                level.id
            );
        }
    }
}
