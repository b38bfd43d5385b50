//! The break-it levels (`levels/*.json`, docs/levels.md): each is held to the checker by `experiments levels
//! --check`, which fails a level the checker disagrees with; a bad level file is refused with what is wrong;
//! the Chinese words keep only the Latin words the article keeps.
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
