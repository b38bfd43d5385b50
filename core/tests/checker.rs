//! The checker's search on small configurations, in the core's own tests (the root package's tests/checker.rs
//! runs the large ones and the CLI): the smallest search counted by hand, what a budget allows, threads against one thread, the
//! reader's rule against the built-ins and its own properties, each counterexample's sentence, the check's
//! document and links, symmetry, and the moves and states a search shared by workers sends. Each compares two
//! runs, or a run with what a user reads, so the mutation run (scripts/mutants.sh) reaches the checker here.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::checker::{self, Action, Config, Counts, Move, Property, Search, Verdict};
use outbox_core::protocol::Location;
use outbox_core::protocol::Ordering;
use outbox_core::rule::{self, Rule, RuleEffect};

fn config(flows: u8, events: u8, resends: u8, crashes: u8, schema2: &str) -> Config {
    Config {
        flows,
        events,
        resends,
        crashes,
        schema2: Config::parse_schema2(schema2),
        ..Config::default()
    }
}

fn run(config: Config) -> Search {
    let mut search = Search::new(config).expect("a valid configuration");
    search.finish().expect("the search runs");
    search
}

/// The counts of a search that holds; CHECKER.md's completion is judged at its quiescent states, so it has one.
fn counts(config: Config) -> Counts {
    let search = run(config);
    assert!(
        matches!(search.verdict(), Some(Verdict::Holds)),
        "{:?}",
        search.verdict()
    );
    assert!(search.counts().quiescent >= 1, "{:?}", search.counts());
    search.counts()
}

/// The property a search stops on and its history's length.
fn broken(search: &Search) -> (Property, usize) {
    match search.verdict() {
        Some(Verdict::Violated(c)) => (c.violation.property, c.moves.len()),
        other => panic!("{other:?}"),
    }
}

fn with_rule(base: &Config, sql: &str, effect: RuleEffect) -> Config {
    Config {
        consumer: Ordering::Rule,
        rule: Some(Rule::new(sql, effect).expect("the rule is accepted")),
        ..base.clone()
    }
}

/// Each resend and each exit spends one of the budget's: a larger budget reaches histories a smaller one does
/// not (two resends, two exits), so each step of it finds more states and more transitions.
#[test]
fn each_step_of_a_budget_reaches_more_states() {
    for (small, large) in [
        (config(1, 2, 0, 0, ""), config(1, 2, 1, 0, "")),
        (config(1, 2, 1, 0, ""), config(1, 2, 2, 0, "")),
        (config(1, 2, 0, 0, ""), config(1, 2, 0, 1, "")),
        (config(1, 2, 0, 1, ""), config(1, 2, 0, 2, "")),
    ] {
        let (a, b) = (counts(small.clone()), counts(large.clone()));
        assert!(
            b.states > a.states && b.transitions > a.transitions,
            "{} gave {a:?}, {} gave {b:?}",
            small.to_query(),
            large.to_query()
        );
    }
}

/// RULE.md: each built-in consumer written as a rule is that consumer, so its search finds the same states, on
/// two flows (each flow's `waiting` holds its own rows only) and with an event the consumer cannot read.
#[test]
fn each_built_in_as_a_rule_gives_the_built_ins_counts() {
    let cases = [
        (Ordering::Strict, config(2, 2, 0, 1, "")),
        (Ordering::Strict, config(1, 3, 0, 0, "A2")),
        (Ordering::GreaterThan, config(2, 1, 1, 1, "")),
        (Ordering::SkipBlocked, config(1, 3, 1, 0, "")),
        (Ordering::EffectOutsideTx, config(1, 2, 1, 0, "")),
    ];
    for (ordering, base) in cases {
        let builtin = counts(Config {
            consumer: ordering,
            ..base.clone()
        });
        let (sql, effect) = rule::builtin(ordering).expect("a built-in with a rule");
        let ruled = counts(with_rule(&base, sql, effect));
        assert_eq!(ruled, builtin, "{ordering:?} on {}", base.to_query());
    }
    assert_eq!(
        rule::builtin(Ordering::DedupeOnly),
        None,
        "dedupe_only writes on receive: no rule"
    );
}

/// RULE.md's `rule_answers`: a rule that names an event `waiting` does not hold is caught at the first state
/// where it does, and the counterexample says what the engine carries out instead.
#[test]
fn an_answer_the_engine_cannot_carry_out_is_caught_and_explained() {
    let base = config(1, 2, 0, 0, "");
    let sql = "SELECT CASE WHEN seq = 2 THEN 'A9' ELSE event_id END, 'apply' FROM waiting ORDER BY seq DESC";
    let ruled = with_rule(&base, sql, RuleEffect::Inside);
    let search = run(ruled.clone());
    let Some(Verdict::Violated(c)) = search.verdict() else {
        panic!("{:?}", search.verdict())
    };
    assert_eq!(c.violation.property, Property::RuleAnswers);
    // advance A1, advance A2, relay A2: the first state where A2 waits.
    assert_eq!(c.moves.len(), 3);
    assert!(
        c.violation
            .message
            .contains("'A9', which is not a waiting row"),
        "{}",
        c.violation.message
    );
    let why = checker::why(&ruled, c);
    assert!(
        why.starts_with("Step 3 (relay A2")
            && why.contains("the engine carries out only 'apply', 'block' or 'skip'"),
        "{why}"
    );
}

/// A search shared by workers sends each move as two bytes: exactly the moves of three flows of three events
/// decode (four kinds of event action on nine events and an apply on three flows, each without an exit or at
/// one of the ten boundaries, then a checkpoint and three power cuts), each back to its own bytes and to a step;
/// any other bytes from a peer are refused.
#[test]
fn a_move_sent_between_workers_decodes_to_itself_or_is_refused() {
    let widest = config(3, 3, 3, 3, "");
    let mut decoded = 0;
    for code in 0..=u16::MAX {
        let bytes = code.to_be_bytes();
        if let Some(m) = Move::from_code(bytes) {
            assert_eq!(m.code(), bytes, "{m:?}");
            let step = m.step(&widest);
            if let Action::Apply(flow) = m.action {
                assert!(flow < 3, "{m:?} is {step:?}");
            }
            decoded += 1;
        }
    }
    // A checkpoint and three cuts, none with an exit.
    assert_eq!(decoded, (4 * 9 + 3) * (1 + 10) + 1 + 3);
}

/// A search on threads, up to five (a CLI's default is the machine's cores), finds one thread's counts, where it
/// holds and where it stops (a search ends with the level of its first broken state), and a shortest history of
/// the same length on the same property.
#[test]
fn a_search_on_threads_finds_what_one_thread_finds() {
    let base = config(2, 2, 1, 1, "");
    let mut cases: Vec<Config> = [
        Ordering::Strict,
        Ordering::DedupeOnly,
        Ordering::GreaterThan,
        Ordering::EffectOutsideTx,
    ]
    .into_iter()
    .map(|consumer| Config {
        consumer,
        ..base.clone()
    })
    .collect();
    // Completion is judged at quiescent states: a level whose only new states break it.
    let never = "SELECT event_id, 'apply' FROM waiting WHERE seq = 0";
    cases.push(with_rule(
        &config(2, 1, 0, 0, ""),
        never,
        RuleEffect::Inside,
    ));
    // A rule that reads arrival: each thread enters states whose inboxes hold the same events in other orders.
    let by_arrival = "SELECT event_id, 'apply' FROM waiting WHERE state = 'pending' AND seq = last_seq + 1 ORDER BY arrival";
    cases.push(with_rule(
        &config(2, 2, 0, 0, ""),
        by_arrival,
        RuleEffect::Inside,
    ));
    for c in cases {
        let one = run(c.clone());
        for threads in [2, 3, 5] {
            let label = format!("{} on {threads} threads", c.to_query());
            let mut many = Search::new(c.clone()).unwrap().with_threads(threads);
            many.finish().unwrap();
            assert_eq!(many.counts(), one.counts(), "{label}");
            if let Some(Verdict::Violated(_)) = one.verdict() {
                assert_eq!(broken(&many), broken(&one), "{label}");
            }
        }
    }
}

/// CHECKER.md's completion: a rule that never answers leaves every flow short of its last event once nothing is
/// left to do. Produced and relayed, A1 waits for an apply that does nothing.
#[test]
fn a_rule_that_applies_nothing_breaks_completion() {
    let never = with_rule(
        &config(1, 1, 0, 0, ""),
        "SELECT event_id, 'apply' FROM waiting WHERE seq = 0",
        RuleEffect::Inside,
    );
    assert_eq!(broken(&run(never)), (Property::Completion, 2));
}

/// A check link (`Config::to_query`, the page's share link and its workers' job) reads back to the same
/// configuration, a rule's text included whatever it holds; parts the checker does not know are handed back.
#[test]
fn a_check_link_reads_back_to_its_configuration() {
    let sql =
        "SELECT event_id, 'apply' -- 预留 100% & a=b+c\nFROM waiting\tWHERE seq = last_seq + 1";
    let cases = [
        Config::default(),
        Config {
            symmetry: true,
            ..config(3, 1, 2, 0, "A1,C1")
        },
        Config {
            producer: outbox_core::protocol::WriteMode::UnsafeDualWrite,
            consumer: Ordering::SkipBlocked,
            ..config(1, 3, 0, 3, "A2")
        },
        with_rule(&config(2, 2, 1, 1, ""), sql, RuleEffect::Outside),
        Config {
            power_cuts: 2,
            synchronous: outbox_core::protocol::Synchronous::Normal,
            ..config(1, 2, 0, 0, "")
        },
        Config {
            synchronous: outbox_core::protocol::Synchronous::Normal,
            ..config(1, 2, 0, 0, "")
        },
    ];
    // Without power cuts the link is as it was before they were a knob.
    assert!(!Config::default().to_query().contains("power"));
    for c in cases {
        let link = format!("{}&verdict=holds", c.to_query());
        assert!(
            link.starts_with(&format!("flows={}&events={}", c.flows, c.events)),
            "{link}"
        );
        let (back, rest) = Config::from_query(&link).unwrap_or_else(|e| panic!("{link}: {e}"));
        assert_eq!(back, c, "{link}");
        assert_eq!(
            rest,
            vec![("verdict".to_owned(), "holds".to_owned())],
            "{link}"
        );
    }
    // A rule's text stays readable in the link: letters, digits and `-_.~` as they are.
    let link = with_rule(
        &Config::default(),
        "SELECT event_id, 'apply' FROM waiting -- a_b.c~",
        RuleEffect::Inside,
    )
    .to_query();
    assert!(
        link.contains("&rule=SELECT%20event_id%2C%20%27apply%27%20FROM%20waiting%20--%20a_b.c~"),
        "{link}"
    );
    assert!(!Config::from_query("symmetry=0").unwrap().0.symmetry);
    // A form's `+` is a space; a `%` without two hex digits stays as it is.
    let (c, _) =
        Config::from_query("rule=SELECT+event_id%2C+'apply'+FROM+waiting+--+100%+sure").unwrap();
    assert_eq!(
        c.rule.unwrap().sql(),
        "SELECT event_id, 'apply' FROM waiting -- 100% sure"
    );
}

/// Each refusal of a check link names what is wrong: a rule with another consumer (the later part wins), an
/// effect before its rule, a knob out of range.
#[test]
fn a_bad_check_link_is_refused_with_what_is_wrong() {
    let refusals = [
        (
            "rule=SELECT+event_id%2C+'apply'+FROM+waiting&consumer=greater_than",
            "a rule is given, but the consumer is greater_than, not rule",
        ),
        (
            "effect=outside",
            "effect belongs to a rule: give the rule first",
        ),
        (
            "flows=4",
            "flows must be a whole number from 1 to 3, got `4`",
        ),
        ("symmetry=yes", "symmetry must be 0 or 1, got `yes`"),
        ("consumer=fifo", "consumer must be one of"),
        (
            "power_cuts=3",
            "power_cuts must be a whole number from 0 to 2, got `3`",
        ),
        (
            "power_cuts=1&synchronous=off",
            "synchronous must be full or normal, got `off`",
        ),
    ];
    for (query, needle) in refusals {
        let e = Config::from_query(query)
            .err()
            .unwrap_or_else(|| panic!("{query} was accepted"));
        assert!(e.contains(needle), "{query}: {e}");
    }
}

/// The page runs a check link without asking only up to its default's size (2 × 3, one resend, one exit).
#[test]
fn only_a_configuration_up_to_the_pages_default_runs_without_asking() {
    assert!(Config::default().is_quick());
    assert!(config(3, 2, 1, 1, "").is_quick());
    assert!(config(1, 1, 0, 0, "").is_quick());
    for larger in [
        config(3, 3, 0, 0, ""),
        config(1, 3, 2, 0, ""),
        config(1, 3, 0, 2, ""),
        Config {
            power_cuts: 2,
            ..config(1, 1, 0, 0, "")
        },
    ] {
        assert!(!larger.is_quick(), "{}", larger.to_query());
    }
}

/// With symmetry, flows are renamed only onto flows whose events have the same schemas: on three plain flows
/// every renaming, with schema 2 on A1 only those that keep A.
#[test]
fn only_flows_alike_are_interchangeable() {
    assert_eq!(config(3, 2, 0, 0, "").symmetries().len(), 6);
    assert_eq!(
        config(3, 2, 0, 0, "A1").symmetries(),
        vec![[0, 1, 2], [0, 2, 1]]
    );
    assert_eq!(
        config(3, 2, 0, 0, "A1,B1,C2").symmetries(),
        vec![[0, 1, 2], [1, 0, 2]]
    );
    assert_eq!(
        config(2, 2, 0, 0, "").symmetries(),
        vec![[0, 1, 2], [1, 0, 2]]
    );
    assert_eq!(config(1, 2, 0, 0, "").symmetries(), vec![[0, 1, 2]]);
}

/// A search shared by workers sends states as their keys: a key reads back to the state that wrote it, and a key
/// no state has (a flow past C, a state or reason with no word, an event past the ninth, a key cut short or
/// too long) is refused with a reason, never loaded into the databases.
#[test]
fn a_state_sent_between_workers_reads_back_or_is_refused() {
    use outbox_core::checker::state::State;
    let c = config(3, 3, 1, 1, "");
    // resends 1, crashes 0; flow A at seq 1 (state 0); outbox A1 accepted; inbox A1 (state 0, reason 0);
    // projection A at last_seq 1 (state 0, held 0); effects A1.
    let key: Vec<u8> = vec![1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0];
    let state = State::from_key(&c, &key).expect("a state's key");
    assert_eq!(&*state.key(), &key[..]);
    use outbox_core::checker::state::{INBOX_STATES, REASONS, STATES};
    let (states, inbox_states, reasons) = (
        STATES.len() as u8,
        INBOX_STATES.len() as u8,
        REASONS.len() as u8,
    );
    // Each code one past its table (the first value no state has), and a flow past C.
    for (at, value, why) in [
        (3, 3, "values no state has"),             // the flow row's flow
        (5, states, "values no state has"),        // the flow row's state
        (11, inbox_states, "values no state has"), // the inbox row's state
        (12, reasons, "values no state has"),      // the inbox row's reason
        (14, 3, "values no state has"),            // the projection's flow
        (16, states, "values no state has"),       // the projection's state
        (10, 9, "no event 9"),                     // the inbox row's event
        (19, 9, "no event 9"),                     // the effect's event
    ] {
        let mut bad = key.clone();
        bad[at] = value;
        let e = State::from_key(&c, &bad).expect_err(&format!("byte {at} = {value}"));
        assert!(e.contains(why), "byte {at} = {value}: {e}");
    }
    let e = State::from_key(&c, &key[..key.len() - 1]).unwrap_err();
    assert!(e.contains("ends early"), "{e}");
    let e = State::from_key(&c, &[&key[..], &[0]].concat()).unwrap_err();
    assert!(e.contains("ends early"), "{e}");
    // The power's tail: a cut spent (1) and no images (0) reads back; an empty tail, or a flag that is
    // neither, is no state's.
    let cut = [&key[..], &[1, 0]].concat();
    assert_eq!(&*State::from_key(&c, &cut).unwrap().key(), &cut[..]);
    for tail in [[0, 0], [1, 2]] {
        let e = State::from_key(&c, &[&key[..], &tail].concat()).unwrap_err();
        assert!(e.contains("values no state has"), "{tail:?}: {e}");
    }
}

/// The counterexample's sentence says what the protocol does instead of the wrong turn that broke the property:
/// the atomic producer for a lost transition, the consumer's own fix otherwise, even beside an unsafe producer
/// that had no exit to lose anything with.
#[test]
fn a_counterexample_says_what_the_protocol_does_instead() {
    use outbox_core::protocol::WriteMode::UnsafeDualWrite;
    let cases = [
        (
            Config {
                producer: UnsafeDualWrite,
                ..config(1, 1, 0, 1, "")
            },
            "the atomic producer commits the state change and its outbox row in one transaction",
        ),
        (
            Config {
                producer: UnsafeDualWrite,
                consumer: Ordering::DedupeOnly,
                ..config(1, 3, 0, 0, "")
            },
            "deduplicating by id stops copies, not reordering",
        ),
        (
            Config {
                consumer: Ordering::GreaterThan,
                ..config(1, 3, 0, 0, "")
            },
            "answers gap while an earlier event is missing",
        ),
        (
            Config {
                consumer: Ordering::EffectOutsideTx,
                ..config(1, 1, 0, 1, "")
            },
            "writes the effect in the same transaction as the projection",
        ),
        (
            with_rule(
                &config(1, 3, 0, 0, ""),
                rule::ARRIVAL_ORDER,
                RuleEffect::Inside,
            ),
            "the strict rule applies only last_seq + 1 with every check passed",
        ),
    ];
    for (c, instead) in cases {
        let search = run(c.clone());
        let Some(Verdict::Violated(v)) = search.verdict() else {
            panic!("{}", c.to_query())
        };
        let why = checker::why(&c, v);
        assert!(why.contains(instead), "{}: {why}", c.to_query());
    }
}

/// One flow of one event, no resend, no exit, counted by hand: the start; A1 produced; A1 relayed (accepted,
/// pending in the inbox); A1 applied. Four transitions: three moves in a line (an apply is offered only once the
/// inbox holds a row) and the apply offered again at the end, which changes nothing. Only the last state is
/// quiescent. An unsafe producer without an exit to lose anything with is the same search.
#[test]
fn the_smallest_configuration_has_the_states_counted_by_hand() {
    let by_hand = Counts {
        states: 4,
        transitions: 4,
        depth: 3,
        quiescent: 1,
    };
    assert_eq!(counts(config(1, 1, 0, 0, "")), by_hand);
    let unsafe_producer = Config {
        producer: outbox_core::protocol::WriteMode::UnsafeDualWrite,
        ..config(1, 1, 0, 0, "")
    };
    assert_eq!(counts(unsafe_producer), by_hand);
}

/// RULE.md's arrival: a rule that applies in arrival order is caught reordering (advance A1, advance A2, relay
/// A2, apply A applies A2 first), and one that reads arrival but waits for last_seq + 1 holds with more states
/// than the strict consumer, because its states keep the order the inbox received them in.
#[test]
fn a_rule_that_reads_arrival_is_searched_with_the_arrival_order() {
    let base = config(1, 3, 0, 0, "");
    let queue = run(with_rule(&base, rule::ARRIVAL_ORDER, RuleEffect::Inside));
    assert_eq!(broken(&queue), (Property::ConsumerInvariant, 4));
    let Some(Verdict::Violated(v)) = queue.verdict() else {
        unreachable!()
    };
    let why = checker::why(
        &with_rule(&base, rule::ARRIVAL_ORDER, RuleEffect::Inside),
        v,
    );
    assert!(
        why.contains("Step 4 (apply A") && why.contains("broke consumer_invariant — the consumer's effects are not a legal, contiguous prefix of its events"),
        "{why}"
    );
    let strict_like = "SELECT event_id, 'apply' FROM waiting WHERE state = 'pending' AND seq = last_seq + 1 ORDER BY arrival";
    let ordered = counts(with_rule(&base, strict_like, RuleEffect::Inside));
    let plain = counts(base);
    assert!(
        ordered.states > plain.states,
        "{ordered:?} against {plain:?}"
    );
}

/// Issue 54's counts, from the independent reference (CHECKER.md's definitions counted by other code): a rule
/// that reads arrival keeps the inbox in arrival order (A1, B1, A2), and `apply` is still offered once per
/// flow. Before the fix: 2,676 and 56,060 transitions. (tests/core/actions.rs checks every state's list.)
#[test]
fn a_rule_that_reads_arrival_gets_checkers_transition_counts() {
    let sql = "SELECT event_id, CASE WHEN problem IS NULL THEN 'apply' ELSE 'block' END FROM waiting WHERE seq = last_seq + 1 ORDER BY arrival LIMIT 1";
    for (resends, crashes, states, transitions) in [(0, 0, 841, 2_136), (1, 1, 8_912, 48_164)] {
        let c = with_rule(&config(2, 2, resends, crashes, ""), sql, RuleEffect::Inside);
        let got = counts(c.clone());
        assert_eq!(
            (got.states, got.transitions),
            (states, transitions),
            "{}",
            c.to_query()
        );
        let mut many = Search::new(c.clone()).unwrap().with_threads(2);
        many.finish().unwrap();
        assert_eq!(many.counts(), got, "{} on 2 threads", c.to_query());
    }
}

/// A rule that blocks an event and skips it at the next apply moves the projection alone (the inbox row is
/// blocked already): caught at that apply, the fourth move.
#[test]
fn a_rule_that_skips_what_it_blocked_is_caught_at_the_skip() {
    let skip_later = "SELECT event_id, CASE WHEN state = 'blocked' THEN 'skip' ELSE 'block' END FROM waiting WHERE seq = last_seq + 1";
    let search = run(with_rule(
        &config(2, 2, 0, 0, ""),
        skip_later,
        RuleEffect::Inside,
    ));
    assert_eq!(broken(&search), (Property::ConsumerInvariant, 4));
}

/// Every flow's rows are judged, not only A's: moving past a blocked event on flow B alone (schema 2 on B2) is
/// caught on the consumer's invariant, naming B.
#[test]
fn a_wrong_turn_on_the_second_flow_alone_is_caught() {
    let c = Config {
        consumer: Ordering::SkipBlocked,
        ..config(2, 2, 0, 0, "B2")
    };
    let search = run(c);
    let Some(Verdict::Violated(v)) = search.verdict() else {
        panic!("{:?}", search.verdict())
    };
    assert_eq!(v.violation.property, Property::ConsumerInvariant);
    assert!(
        v.violation.message.contains("flow B"),
        "{}",
        v.violation.message
    );
}

/// The check's document (`experiments check --json`, the page's worker): a stopped search carries the property,
/// its sentence and a counterexample that replays to the same tables; one that holds carries none of them.
#[test]
fn the_checks_document_carries_the_counterexample_that_replays() {
    use outbox_core::checker::report;
    let c = Config {
        consumer: Ordering::DedupeOnly,
        ..config(1, 3, 0, 0, "")
    };
    let search = run(c.clone());
    let doc = report::document(&c, &search, 12, 1, None);
    assert_eq!(doc["format"], report::FORMAT);
    assert_eq!(doc["verdict"], "violated");
    assert_eq!(doc["property"], "consumer_invariant");
    let counts = search.counts();
    assert_eq!(doc["counts"]["states"], counts.states);
    assert_eq!(doc["counts"]["transitions"], counts.transitions);
    assert_eq!(doc["counts"]["depth"], counts.depth);
    let Some(Verdict::Violated(v)) = search.verdict() else {
        unreachable!()
    };
    let why = doc["why"].as_str().unwrap();
    assert!(
        why.starts_with("Step 3 (") && why.contains("deduplicating by id stops copies"),
        "{why}"
    );
    let trace = outbox_core::trace::parse(&doc["counterexample"].to_string()).expect("a trace");
    assert_eq!(trace.steps, v.trace.steps);
    assert_eq!(
        doc["results"].as_array().map(Vec::len),
        Some(v.reports.len())
    );
    assert_eq!(doc["symmetry"], false);
    // A finished search asked for more (a page's slice that raced the end) stays as it was.
    let mut again = run(c.clone());
    assert!(again.run(1_000).unwrap());
    assert_eq!(again.counts(), search.counts());
    assert_eq!(broken(&again), broken(&search));
    let symmetric = Config {
        symmetry: true,
        ..config(2, 1, 0, 0, "")
    };
    let doc = report::document(&symmetric, &run(symmetric.clone()), 1, 1, None);
    assert_eq!(doc["symmetry"], true);
    // One flow has nothing to rename: symmetry asked for is not in effect, and the page says so.
    let alone = Config {
        symmetry: true,
        ..config(1, 2, 0, 0, "")
    };
    assert!(!Search::new(alone).unwrap().symmetry());
    let holds = run(config(1, 1, 0, 0, ""));
    let doc = report::document(&config(1, 1, 0, 0, ""), &holds, 1, 1, None);
    assert_eq!(
        (&doc["verdict"], &doc["property"], &doc["counterexample"]),
        (
            &"holds".into(),
            &serde_json::Value::Null,
            &serde_json::Value::Null
        )
    );
}

/// With symmetry a state and the same state with flows A and B swapped are one: A at seq 1 and B at seq 2, or A
/// at seq 2 and B at seq 1, have one fingerprint (the renamed rows are sorted back into the key's order).
#[test]
fn a_state_and_its_renaming_are_one_under_symmetry() {
    use outbox_core::checker::state::State;
    let c = config(2, 3, 0, 0, "");
    // resends, crashes; two flow rows (flow, seq, state); the outbox (event index, accepted); no inbox,
    // projection or effect.
    let a1_b2 = [0, 0, 2, 0, 1, 1, 1, 2, 2, 3, 0, 0, 3, 0, 4, 0, 0, 0, 0];
    let a2_b1 = [0, 0, 2, 0, 2, 2, 1, 1, 1, 3, 0, 0, 1, 0, 3, 0, 0, 0, 0];
    let (s1, s2) = (
        State::from_key(&c, &a1_b2).unwrap(),
        State::from_key(&c, &a2_b1).unwrap(),
    );
    assert_ne!(s1.key(), s2.key());
    let perms = c.symmetries();
    assert_eq!(s1.fingerprint(&perms), s2.fingerprint(&perms));
    // The same with the events in the inbox (pending), whose rows the renaming puts back in order too.
    let with_inbox = |flows: [u8; 6], outbox: [u8; 6], inbox: [u8; 3]| {
        let mut key = vec![0, 0, 2];
        key.extend(flows);
        key.push(3);
        key.extend(outbox);
        key.push(3);
        key.extend(inbox.iter().flat_map(|&ev| [ev, 0, 0]));
        key.extend([0, 0]);
        State::from_key(&c, &key).unwrap()
    };
    let s1 = with_inbox([0, 1, 1, 1, 2, 2], [0, 1, 3, 1, 4, 1], [0, 3, 4]);
    let s2 = with_inbox([0, 2, 2, 1, 1, 1], [0, 1, 1, 1, 3, 1], [0, 1, 3]);
    assert_eq!(s1.fingerprint(&perms), s2.fingerprint(&perms));
}

/// RULE.md's `waiting` for a flow, as the checker builds it from a state to judge a rule's answer: that flow's
/// rows not yet applied, and nothing of another flow's.
#[test]
fn waiting_holds_the_flows_rows_not_yet_applied() {
    use outbox_core::checker::state::State;
    let c = config(2, 2, 0, 0, "");
    // Flow A at seq 2 (confirmed), B at seq 1; A1, A2 and B1 accepted; the inbox: A1 applied, A2 and B1
    // pending; A's projection at last_seq 1 (reserved, held 3); A1's effect.
    let key = [
        0, 0, 2, 0, 2, 2, 1, 1, 1, 3, 0, 1, 1, 1, 3, 1, 3, 0, 2, 0, 1, 0, 0, 3, 0, 0, 1, 0, 1, 1,
        3, 1, 0,
    ];
    let s = State::from_key(&c, &key).unwrap();
    let ids = |flow| {
        s.waiting(&c, flow)
            .into_iter()
            .map(|r| r.event_id)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(0), ["A2"]);
    assert_eq!(ids(1), ["B1"]);
    let a2 = &s.waiting(&c, 0)[0];
    let row = (
        a2.seq,
        a2.last_seq,
        a2.state.as_str(),
        a2.flow_state.as_str(),
        a2.held,
    );
    assert_eq!(row, (2, 1, "pending", "reserved", 3));
    // B has no projection: its rows read last_seq 0, `new`, held 0.
    let b1 = &s.waiting(&c, 1)[0];
    assert_eq!(
        (b1.last_seq, b1.flow_state.as_str(), b1.held),
        (0, "new", 0)
    );
}

/// The checker judges a rule's answer on `waiting` as the consumer fills it, `problem` included: a rule whose
/// answer names no row when an event fails a check (schema 2 here) is caught on that event's arrival.
#[test]
fn a_rule_is_judged_with_each_events_problem() {
    let sql =
        "SELECT CASE WHEN problem IS NULL THEN event_id ELSE 'nothing' END, 'apply' FROM waiting";
    let search = run(with_rule(
        &config(1, 2, 0, 0, "A2"),
        sql,
        RuleEffect::Inside,
    ));
    assert_eq!(broken(&search), (Property::RuleAnswers, 3));
    let Some(Verdict::Violated(v)) = search.verdict() else {
        unreachable!()
    };
    assert!(
        v.violation
            .message
            .contains("'nothing', which is not a waiting row"),
        "{}",
        v.violation.message
    );
}

fn with_power(base: Config, cuts: u8, synchronous: outbox_core::protocol::Synchronous) -> Config {
    Config {
        power_cuts: cuts,
        synchronous,
        ..base
    }
}

/// CHECKER.md's power cuts under `full`: every commit is synced, so a cut changes no row and spends one of the
/// budget. Each state is then reached with the budget unspent and spent — twice the states — and each unspent
/// one adds its three cuts: transitions 2T + 3S, quiescent states twice as many. On threads as on one.
#[test]
fn a_power_cut_under_full_loses_nothing_and_only_spends_its_budget() {
    use outbox_core::protocol::Synchronous;
    for base in [config(1, 3, 1, 1, ""), config(2, 2, 1, 1, "A2")] {
        let without = counts(base.clone());
        let cut = with_power(base, 1, Synchronous::Full);
        let with = counts(cut.clone());
        assert_eq!(with.states, 2 * without.states, "{}", cut.to_query());
        assert_eq!(
            with.transitions,
            2 * without.transitions + 3 * without.states,
            "{}",
            cut.to_query()
        );
        assert_eq!(with.quiescent, 2 * without.quiescent);
        let mut threads = Search::new(cut.clone()).unwrap().with_threads(3);
        threads.finish().unwrap();
        assert_eq!(threads.counts(), with, "{} on 3 threads", cut.to_query());
    }
}

/// Under `normal` a cut takes back what was committed since the last checkpoint: the shortest loss is a
/// delivery the consumer's disk had not synced (advance, relay, cut the consumer), and the trace starts by
/// setting `synchronous`; the sentence says what a checkpoint and `full` change.
#[test]
fn a_power_cut_under_normal_loses_an_acknowledged_event() {
    use outbox_core::protocol::Synchronous;
    let normal = with_power(Config::default(), 1, Synchronous::Normal);
    let search = run(normal.clone());
    let Some(Verdict::Violated(c)) = search.verdict() else {
        panic!("{:?}", search.verdict())
    };
    assert_eq!(c.violation.property, Property::NoLoss);
    let steps: Vec<String> = c.trace.steps.iter().map(checker::describe).collect();
    assert_eq!(
        steps,
        [
            "set_synchronous normal",
            "advance A1",
            "relay A1",
            "power_cut consumer"
        ]
    );
    assert_eq!(c.moves.len(), 3);
    let why = checker::why(&normal, c);
    assert!(why.contains("since the last checkpoint"), "{why}");
}

/// The checker works a checkpoint and a cut out on the state (the images beside the rows); the real system runs
/// them on SQLite. Random walks over every consumer, choosing among the checker's own actions, must find the two
/// always holding the same rows, and every state's key reading back to the state.
#[test]
fn a_power_cut_worked_out_on_the_state_is_what_sqlite_does() {
    use outbox_core::checker::state::State;
    use outbox_core::protocol::Synchronous;
    use outbox_core::trace::Session;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let (mut cuts, mut lost_rows) = (0, 0);
    for walk in 0..240 {
        let consumer = [
            Ordering::Strict,
            Ordering::DedupeOnly,
            Ordering::GreaterThan,
            Ordering::SkipBlocked,
            Ordering::EffectOutsideTx,
        ][walk % 5];
        let c = Config {
            consumer,
            power_cuts: 2,
            synchronous: Synchronous::Normal,
            ..config(2, 3, 1, 1, "A2")
        };
        let mut session = Session::create(&Location::memory(), c.setup()).unwrap();
        for step in c.prelude() {
            session.step(&step);
        }
        let mut s = State::initial(&c);
        for _ in 0..14 {
            let actions = checker::actions(&c, &s);
            let action = actions[next(actions.len())];
            let m = Move {
                action,
                crash: None,
            };
            let report = session.step(&m.step(&c));
            let real =
                State::from_snapshot(&c, &session.rows_without_bodies().unwrap(), 0, 0).unwrap();
            s = match action {
                Action::Checkpoint => s.checkpointed(),
                Action::PowerCut(mask) => {
                    cuts += 1;
                    lost_rows += report.lost_rows;
                    s.cut(mask)
                }
                _ => {
                    let (r, k) = (u8::from(matches!(action, Action::Resend(_))), 0);
                    State {
                        resends_used: s.resends_used + r,
                        crashes_used: s.crashes_used + k,
                        power_cuts_used: s.power_cuts_used,
                        synced: s.synced.clone(),
                        ..real.clone()
                    }
                }
            };
            assert!(
                s.same_rows(&real),
                "walk {walk} under {}: after {action:?} the checker's rows differ from SQLite's",
                consumer.name()
            );
            assert_eq!(State::from_key(&c, &s.key()).unwrap(), s, "walk {walk}");
            if s.power_cuts_used == c.power_cuts {
                break;
            }
        }
    }
    assert!(
        cuts > 150 && lost_rows > 50,
        "{cuts} cuts took {lost_rows} rows"
    );
}

/// A search from a reader's position (a hint's) counts each class of states once under symmetry, the position
/// included: from B's history and from the same history on A (one class), the same counts.
#[test]
fn a_search_from_a_position_counts_its_root_once_under_symmetry() {
    let on = Config {
        symmetry: true,
        ..config(2, 1, 0, 0, "")
    };
    let history = |flow: u8| {
        let ev = outbox_core::checker::config::Ev { flow, seq: 1 };
        [Action::Advance(ev), Action::Relay(ev), Action::Apply(flow)].map(|action| Move {
            action,
            crash: None,
        })
    };
    let counts = |c: &Config, flow: u8| {
        let mut s = Search::after(c.clone(), history(flow).to_vec()).unwrap();
        s.finish().unwrap();
        assert!(matches!(s.verdict(), Some(Verdict::Holds)));
        s.counts()
    };
    assert_eq!(counts(&on, 1), counts(&on, 0));
}
