//! The space-time diagram as the page, the exported file and the golden file draw it: its marks for each
//! step, read back from the SVG text. Native only (the renderer is plain Rust; the page's copy of it is
//! checked in Chromium by the end-to-end tests).
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::diagram::{row_at, svg, Diagram, Style};
use outbox_core::lang::Lang;
use outbox_core::playground::{Command, Entry, Playground};
use outbox_core::protocol::{Boundary, Outcome};
use outbox_core::trace::{ConsumerSetup, Op};

fn preset(n: usize) -> Playground {
    let mut pg = Playground::new(ConsumerSetup::default()).expect("in-memory databases open");
    pg.apply(Command::LoadPreset(n - 1));
    assert!(pg.notice.is_none(), "{:?}", pg.notice);
    pg
}

fn draw(pg: &Playground, lang: Lang, style: Style) -> String {
    svg(&Diagram::of(pg, lang), style)
}

fn file(pg: &Playground, lang: Lang) -> String {
    draw(pg, lang, Style::File { dark: false })
}

/// The indexes of the steps whose entry `keep` picks.
fn steps_where(pg: &Playground, keep: impl Fn(&Entry) -> bool) -> Vec<usize> {
    (0..pg.entries.len())
        .filter(|&i| keep(&pg.entries[i]))
        .collect()
}

/// The `data-step` of every mark of `kind`, in order.
fn marks(svg: &str, kind: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut step = None;
    for tag in svg.split('<') {
        if let Some(rest) = tag.strip_prefix("g class=\"row") {
            let at = rest.find("data-step=\"").expect("a row names its step") + 11;
            let end = rest[at..].find('"').unwrap();
            step = Some(rest[at..at + end].parse::<usize>().unwrap());
        }
        if tag.contains(&format!("data-kind=\"{kind}\"")) {
            out.push(step.expect("a mark sits in a row"));
        }
    }
    out
}

#[test]
fn one_arrow_per_relay_with_its_receipt() {
    let pg = preset(3);
    let svg = file(&pg, Lang::En);
    let relays: Vec<usize> = steps_where(&pg, |e| matches!(e.report.result, Outcome::Received(_)));
    assert!(!relays.is_empty());
    assert_eq!(marks(&svg, "relay"), relays);
    for i in relays {
        let Outcome::Received(receipt) = pg.entries[i].report.result else {
            unreachable!()
        };
        let id = pg.entries[i].report.relayed.clone().unwrap();
        assert!(
            svg.contains(&format!(">{id} {receipt}</text>")),
            "step {i}: {id} {receipt}"
        );
    }
}

#[test]
fn applies_name_the_event_and_the_new_last_seq_or_why_they_stopped() {
    let pg = preset(3);
    let svg = file(&pg, Lang::En);
    let applies: Vec<usize> =
        steps_where(&pg, |e| matches!(e.step.op(), Op::Apply | Op::ProcessAll));
    assert_eq!(marks(&svg, "apply"), applies);
    // Arrival 3, 1, 2: after 3 the flow waits at a gap; the drain at the end applies A1..A3.
    assert_eq!(svg.matches(">A: gap</text>").count(), 2, "{svg}");
    for (id, seq) in [("A1", 1), ("A2", 2), ("A3", 3)] {
        assert!(
            svg.contains(&format!(">applied {id}</text>"))
                && svg.contains(&format!(">last_seq {seq}</text>")),
            "{id}: {svg}"
        );
    }
    // A drain that finishes two flows: each flow's new last_seq.
    let mut pg = Playground::new(ConsumerSetup::default()).unwrap();
    for c in [
        Command::AddFlow("B".into()),
        Command::Advance("A".into()),
        Command::Advance("B".into()),
        Command::DeliverAll,
        Command::ProcessAll,
    ] {
        pg.apply(c);
    }
    let svg = file(&pg, Lang::En);
    assert!(
        svg.contains(">applied A1, B1</text>") && svg.contains(">last_seq A:1 B:1</text>"),
        "{svg}"
    );
}

#[test]
fn a_crash_is_a_cut_naming_its_boundary_and_a_restart_follows() {
    let pg = preset(9);
    let svg = file(&pg, Lang::En);
    let crashes: Vec<usize> = steps_where(&pg, |e| e.report.result == Outcome::Crashed);
    assert_eq!(crashes.len(), 10, "experiment 9 crashes at each boundary");
    assert_eq!(marks(&svg, "crash"), crashes);
    for b in Boundary::ALL {
        assert!(
            svg.contains(&format!("data-boundary=\"{b}\""))
                && svg.contains(&format!("{}. {b}", b.number())),
            "{b}"
        );
    }
    // Each crash but a last one is followed by a restart drawn on the next step's row.
    let restarts = marks(&svg, "restart");
    let want: Vec<usize> = crashes
        .iter()
        .map(|i| i + 1)
        .filter(|i| *i < pg.entries.len())
        .collect();
    assert_eq!(restarts, want);
}

#[test]
fn the_first_broken_step_is_marked_and_only_it() {
    let pg = preset(5);
    assert!(!pg.invariant.holds);
    let at = pg.broke_at.expect("experiment 5 breaks the invariant");
    let svg = file(&pg, Lang::En);
    assert_eq!(marks(&svg, "violation"), vec![at]);
    let fine = preset(3);
    assert!(marks(&file(&fine, Lang::En), "violation").is_empty());
}

#[test]
fn the_page_draws_a_window_and_the_file_has_no_script() {
    let pg = preset(9);
    let n = pg.entries.len();
    let page = draw(&pg, Lang::En, Style::Page { from: 2, to: 5 });
    assert_eq!(page.matches("<g class=\"row").count(), 3);
    assert!(page.contains(&format!("height=\"{}\"", outbox_core::diagram::height(n))));
    assert!(page.contains("tabindex=\"0\""));
    let file = file(&pg, Lang::En);
    assert_eq!(file.matches("<g class=\"row").count(), n);
    assert!(!file.to_lowercase().contains("<script"));
    // No event handler attribute (` onclick=`, ` onload=`…).
    assert!(!file.split(" on").skip(1).any(|rest| {
        let name: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
        !name.is_empty() && rest[name.len()..].starts_with('=')
    }));
    assert!(file.contains("<style>") && !file.contains("tabindex"));
}

#[test]
fn chinese_glosses_the_business_states_and_names_the_lanes() {
    let pg = preset(3);
    let svg = file(&pg, Lang::Zh);
    assert!(
        svg.contains("reserved（预留）") && svg.contains("released（释放）"),
        "{svg}"
    );
    // The lanes in the article's words (`lang::glossary`): inbox and projection as it keeps them.
    assert!(
        svg.contains("生产端") && svg.contains(">inbox<") && svg.contains("projection + 执行记录")
    );
    assert!(svg.contains("lang=\"zh-Hans\""));
}

/// The golden files: experiment 3 (English, light) and the sessions that draw the other rows, each in both
/// languages and both styles between its two files: experiments 5 (the broken invariant's mark), 6 (schema 2, a
/// block), 7 (two flows drained at once, one stopped at a gap), 8 (a receive), 9 (crashes at the ten boundaries
/// and their restarts), 10 (a rejected write, a fault); a power cut under NORMAL as the last step, of each
/// machine and of both (the cut, the rows it took, the restart); a crash as the last step and the reader's
/// Restart; one drain that applies two flows and stops a third at its gap, and one that applies nothing. Each file is the exported SVG with one tag a line. `UPDATE_GOLDEN=1` writes
/// them anew; review the diff.
#[test]
fn golden_svgs() {
    const GOLDEN: [(usize, Lang, bool, &str); 13] = [
        (3, Lang::En, false, "03-arrival-3-1-2.svg"),
        (5, Lang::En, true, "05-dedupe-only-consumer.dark.svg"),
        (5, Lang::Zh, false, "05-dedupe-only-consumer.zh.svg"),
        (6, Lang::En, false, "06-schema-v2-blocks.svg"),
        (6, Lang::Zh, true, "06-schema-v2-blocks.zh.dark.svg"),
        (7, Lang::En, false, "07-gap-isolation.svg"),
        (7, Lang::Zh, true, "07-gap-isolation.zh.dark.svg"),
        (8, Lang::Zh, false, "08-relay-starvation.zh.svg"),
        (8, Lang::En, true, "08-relay-starvation.dark.svg"),
        (9, Lang::En, false, "09-ten-crash-boundaries.svg"),
        (9, Lang::Zh, true, "09-ten-crash-boundaries.zh.dark.svg"),
        (10, Lang::Zh, false, "10-rejecting-triggers.zh.svg"),
        (10, Lang::En, true, "10-rejecting-triggers.dark.svg"),
    ];
    let power_cut = |database: &str| {
        let mut pg = Playground::new(ConsumerSetup::default()).unwrap();
        let trace = outbox_core::trace::parse(&format!(
            r#"{{"format":"outbox-playground-trace/1","steps":[{{"op":"set_synchronous","mode":"normal"}},
            {{"op":"advance","flow":"A","event_id":"A1","expected_seq":0,"kind":"reserved","schema":1,"payload":{{"amount":3}}}},
            {{"op":"relay"}},{{"op":"power_cut","databases":["{database}"]}}]}}"#
        ))
        .unwrap();
        pg.apply(Command::Load(Box::new(trace)));
        assert!(pg.notice.is_none(), "{:?}", pg.notice);
        pg
    };
    // A crash as the last step, and the reader's Restart after it.
    let restarted = || {
        let mut pg = Playground::new(ConsumerSetup::default()).unwrap();
        pg.apply(Command::Advance("A".into()));
        pg.apply(Command::DeliverNext);
        pg.apply(Command::Arm(Some(Boundary::ApplyAfterEffect)));
        pg.apply(Command::Apply("A".into()));
        pg.apply(Command::Restart);
        pg
    };
    // One process_all that applies A1 and B1 and stops C at its gap (C1 never relayed), then one that applies
    // nothing.
    let drain = || {
        let advance = |flow: &str, n: u32| {
            format!(
                r#"{{"op":"advance","flow":"{flow}","event_id":"{flow}{n}","expected_seq":{},"kind":"{}","schema":1,"payload":{{"amount":3}}}}"#,
                n - 1,
                ["reserved", "confirmed"][n as usize - 1]
            )
        };
        let steps = [
            advance("A", 1),
            advance("B", 1),
            advance("C", 1),
            advance("C", 2),
            r#"{"op":"relay","event_id":"A1"}"#.into(),
            r#"{"op":"relay","event_id":"B1"}"#.into(),
            r#"{"op":"relay","event_id":"C2"}"#.into(),
            r#"{"op":"process_all"}"#.into(),
            // Again: nothing to apply, C still waiting at its gap.
            r#"{"op":"process_all"}"#.into(),
        ];
        let trace = outbox_core::trace::parse(&format!(
            r#"{{"format":"outbox-playground-trace/1","steps":[{}]}}"#,
            steps.join(",")
        ))
        .unwrap();
        let mut pg = Playground::new(ConsumerSetup::default()).unwrap();
        pg.apply(Command::Load(Box::new(trace)));
        assert!(pg.notice.is_none(), "{:?}", pg.notice);
        pg
    };
    let sessions = GOLDEN
        .into_iter()
        .map(|(n, lang, dark, name)| (preset(n), lang, dark, name))
        .chain([
            (
                power_cut("consumer"),
                Lang::En,
                false,
                "power-cut-consumer.svg",
            ),
            (
                power_cut("producer"),
                Lang::Zh,
                true,
                "power-cut-producer.zh.dark.svg",
            ),
            (restarted(), Lang::En, true, "crash-then-restart.dark.svg"),
            (
                power_cut("consumer\",\"producer"),
                Lang::Zh,
                false,
                "power-cut-both.zh.svg",
            ),
            (drain(), Lang::En, false, "drain-two-flows-and-a-gap.svg"),
        ]);
    let mut changed = Vec::new();
    for (pg, lang, dark, name) in sessions {
        // One tag a line, so that a change reads as a diff of the marks it moved (the drawing has no newline of
        // its own, so `replace(">\n<", "><")` gives the file back, as the CLI's test does).
        let svg = draw(&pg, lang, Style::File { dark }).replace("><", ">\n<") + "\n";
        let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &svg).unwrap();
        }
        let golden = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{name} exists (UPDATE_GOLDEN=1 writes it)"));
        // The first line that differs, rather than two whole files.
        let first = golden
            .lines()
            .chain(["(end)"])
            .zip(svg.lines().chain(["(end)"]))
            .enumerate()
            .find(|(_, (want, got))| want != got);
        if let Some((i, (want, got))) = first {
            changed.push(format!(
                "{name} line {}:\n  golden: {want}\n  now:    {got}",
                i + 1
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "the diagram changed; if on purpose, UPDATE_GOLDEN=1 and review the diff\n{}",
        changed.join("\n")
    );
}

/// Reader text reaches the SVG escaped: a rejected `receive` shows its event's id and body, and neither may
/// open an element or an attribute.
#[test]
fn hostile_text_is_escaped() {
    let mut pg = Playground::new(ConsumerSetup::default()).unwrap();
    let trace = outbox_core::trace::parse(
        r#"{"format":"outbox-playground-trace/1","steps":[{"op":"receive","event":{"event_id":"<i>&\"a=\u0001","flow_id":"A&B"}}]}"#,
    )
    .unwrap();
    pg.apply(Command::Load(Box::new(trace)));
    assert_eq!(pg.entries.len(), 1);
    for style in [Style::Page { from: 0, to: 10 }, Style::File { dark: true }] {
        let svg = draw(&pg, Lang::En, style);
        // The id, shortened or whole, is drawn as text: no element, no attribute, no control character.
        assert!(
            !svg.contains("<i>") && !svg.contains("\"a=") && !svg.contains('\u{1}'),
            "{svg}"
        );
        assert!(svg.contains("&lt;i&gt;&amp;&quot;a=\u{fffd}"), "{svg}");
        // Every ampersand begins an entity.
        assert!(
            svg.match_indices('&')
                .all(|(i, _)| ["&amp;", "&lt;", "&gt;", "&quot;", "&#"]
                    .iter()
                    .any(|e| svg[i..].starts_with(e))),
            "{svg}"
        );
    }
}

/// An apply that fails otherwise than with an apply result (here a rejecting trigger's SQL error) still shows
/// its answer in the apply lane.
#[test]
fn an_apply_that_fails_shows_its_answer() {
    let mut pg = Playground::new(ConsumerSetup::default()).unwrap();
    pg.apply(Command::Advance("A".into()));
    pg.apply(Command::DeliverNext);
    pg.apply(Command::Fault(
        outbox_core::protocol::FaultTarget::EffectInsert,
        true,
    ));
    pg.apply(Command::Apply("A".into()));
    let last = pg.entries.len() - 1;
    assert_eq!(pg.entries[last].report.result, Outcome::SqlError);
    let svg = file(&pg, Lang::En);
    assert_eq!(marks(&svg, "apply"), vec![last]);
    assert!(
        svg.contains(r#"data-kind="apply" data-result="sql_error""#)
            && svg.contains(">A: sql_error<"),
        "{svg}"
    );
}

/// The number in `attribute="N"`, the first after `from` in `text`.
fn number_after(text: &str, from: &str) -> usize {
    let at = text
        .find(from)
        .unwrap_or_else(|| panic!("{from} in {text}"))
        + from.len();
    let end = text[at..].find('"').unwrap();
    text[at..at + end].parse().unwrap()
}

/// The page scrolls a long diagram by asking `row_at` which row an offset falls in: every offset inside a
/// row's band, as the file draws it, is that row.
#[test]
fn the_row_under_an_offset_is_the_row_drawn_there() {
    let pg = preset(9);
    let svg = file(&pg, Lang::En);
    let rows: Vec<&str> = svg.split("<g class=\"row").skip(1).collect();
    assert_eq!(rows.len(), pg.entries.len());
    for row in rows {
        let step = number_after(row, "data-step=\"");
        let band = &row[row
            .find("<rect class=\"band\"")
            .expect("a row has its band")..];
        let (y, height) = (number_after(band, " y=\""), number_after(band, "height=\""));
        assert_eq!(
            (row_at(y), row_at(y + height - 1)),
            (step, step),
            "row {step}"
        );
    }
    // Above the first row (the lanes' heads): the first row.
    assert_eq!(row_at(0), 0);
}

/// A `receive` names its flow inside its event: its arrow has that flow's colour, the second flow's here.
#[test]
fn a_receive_takes_the_colour_of_its_events_flow() {
    let mut pg = Playground::new(ConsumerSetup::default()).unwrap();
    let trace = outbox_core::trace::parse(
        r#"{"format":"outbox-playground-trace/1","steps":[
        {"op":"advance","flow":"A","event_id":"A1","expected_seq":0,"kind":"reserved","schema":1,"payload":{"amount":3}},
        {"op":"receive","event":{"event_id":"B1","flow_id":"B","seq":1,"kind":"reserved","schema":1,"payload":{"amount":3}}}]}"#,
    )
    .unwrap();
    pg.apply(Command::Load(Box::new(trace)));
    let svg = file(&pg, Lang::En);
    let receive = &svg[svg.find("data-step=\"1\"").unwrap()..];
    let arrow = &receive[receive
        .find("<line class=\"msg")
        .expect("the receive's arrow")..];
    assert!(arrow.starts_with("<line class=\"msg f1 "), "{arrow}");
}
