//! The checker's configuration (CHECKER.md "Configuration"): the bounds of the search, checked before anything
//! runs, and the fixed events they imply.

use crate::protocol::rule::{Rule, RuleEffect};
use crate::protocol::{Event, Ordering, Synchronous, WriteMode, KINDS};
use crate::trace::{schema_payload, ConsumerSetup, Step};
use crate::words::Word;
use std::sync::Arc;

/// The flows a configuration can name, in order.
pub const FLOW_IDS: [&str; 3] = ["A", "B", "C"];
/// Their events, in id order (the index of [`Ev::index`]).
const EVENT_IDS: [&str; 9] = ["A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// 1–3: flows `A`, `B`, `C`.
    pub flows: u8,
    /// 1–3 events per flow: `A1 A2 A3`, kinds `reserved confirmed released`.
    pub events: u8,
    /// 0–3 relays of a row already accepted.
    pub resends: u8,
    /// 0–3 process exits (a step with `crash_at`, or an `unsafe_dual_write`).
    pub crashes: u8,
    /// Event ids produced in schema 2 (`{"units":3}`), sorted, each once; `support_v2` stays false.
    pub schema2: Vec<String>,
    pub consumer: Ordering,
    /// The reader's rule, with `consumer` [`Ordering::Rule`] (RULE.md).
    pub rule: Option<Arc<Rule>>,
    pub producer: WriteMode,
    /// 0–2 power cuts (CHECKER.md, "Power cuts").
    pub power_cuts: u8,
    /// `full` or `normal`: both databases' `synchronous`, set before the first step.
    pub synchronous: Synchronous,
    /// Count states that differ only in which of two interchangeable flows is which once (not a knob of
    /// CHECKER.md: a way to search, [`super::Search::with_symmetry`]; `experiments check --symmetry`).
    pub symmetry: bool,
}

impl Default for Config {
    /// The page's default: 2 flows × 3 events × 1 resend × 1 crash, strict, atomic.
    fn default() -> Config {
        Config {
            flows: 2,
            events: 3,
            resends: 1,
            crashes: 1,
            schema2: Vec::new(),
            consumer: Ordering::Strict,
            rule: None,
            producer: WriteMode::Atomic,
            power_cuts: 0,
            synchronous: Synchronous::Full,
            symmetry: false,
        }
    }
}

/// One event of a configuration: `flow` and `seq` index it (0-based flow, 1-based seq).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ev {
    pub flow: u8,
    pub seq: u8,
}

impl Ev {
    /// A compact index, in event-id order (`A1 A2 A3 B1 …`).
    pub fn index(self) -> u8 {
        self.flow * 3 + (self.seq - 1)
    }

    pub fn from_index(i: u8) -> Ev {
        Ev {
            flow: i / 3,
            seq: i % 3 + 1,
        }
    }

    pub fn id(self) -> &'static str {
        EVENT_IDS[self.index() as usize]
    }

    pub fn flow_id(self) -> &'static str {
        FLOW_IDS[self.flow as usize]
    }

    pub fn kind(self) -> &'static str {
        KINDS[(self.seq - 1) as usize]
    }
}

impl Config {
    /// Every bound of CHECKER.md, with a message naming the knob and its range.
    pub fn validate(&self) -> Result<(), String> {
        for (name, value, min, max) in [
            ("flows", self.flows, 1, 3),
            ("events", self.events, 1, 3),
            ("resends", self.resends, 0, 3),
            ("crashes", self.crashes, 0, 3),
            ("power_cuts", self.power_cuts, 0, 2),
        ] {
            if !(min..=max).contains(&value) {
                return Err(format!("{name} must be from {min} to {max}, got {value}"));
            }
        }
        match (self.consumer, &self.rule) {
            (Ordering::Rule, None) => return Err("consumer rule needs a rule (its SELECT)".into()),
            (other, Some(_)) if other != Ordering::Rule => {
                return Err(format!(
                    "a rule is given, but the consumer is {}, not rule",
                    other.name()
                ))
            }
            _ => {}
        }
        if self.synchronous == Synchronous::Off {
            return Err(
                "synchronous must be full or normal, got off (the checker keeps no disk under OFF)"
                    .into(),
            );
        }
        for id in &self.schema2 {
            if self.parse_event(id).is_none() {
                return Err(format!(
                    "schema2 names `{id}`, which is not an event of {} flow(s) × {} event(s) ({})",
                    self.flows,
                    self.events,
                    self.events().map(Ev::id).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        Ok(())
    }

    /// Reads `--schema2 A2,B1` (empty text: none). Validity against the flows and events is [`Config::validate`]'s.
    pub fn parse_schema2(text: &str) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for id in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            // Kept sorted as it is built (no sort or set: the page pays for every generic it instantiates).
            if let Err(at) = ids.binary_search_by(|x| x.as_str().cmp(id)) {
                ids.insert(at, id.to_owned());
            }
        }
        ids
    }

    /// The event an id names in this configuration.
    pub fn parse_event(&self, id: &str) -> Option<Ev> {
        self.events().find(|e| e.id() == id)
    }

    /// Every event, in id order.
    pub fn events(&self) -> impl Iterator<Item = Ev> + '_ {
        (0..self.flows).flat_map(move |flow| (1..=self.events).map(move |seq| Ev { flow, seq }))
    }

    pub fn schema(&self, ev: Ev) -> i64 {
        if self.schema2.iter().any(|id| id == ev.id()) {
            2
        } else {
            1
        }
    }

    /// The event exactly as the producer commits it.
    pub fn event(&self, ev: Ev) -> Event {
        let schema = self.schema(ev);
        Event::new(
            ev.id(),
            ev.flow_id(),
            i64::from(ev.seq),
            ev.kind(),
            schema,
            schema_payload(schema),
        )
        .unwrap_or_else(|e| unreachable!("the checker's events are within every bound: {e}"))
    }

    /// Every event's canonical body, by [`Ev::index`] (empty for events outside the configuration).
    pub fn bodies(&self) -> Vec<String> {
        let mut out = vec![String::new(); EVENT_IDS.len()];
        for ev in self.events() {
            out[ev.index() as usize] = self.event(ev).canonical_body();
        }
        out
    }

    /// The renamings of flows that change nothing about the configuration: flows with the same events (the
    /// same ones in schema 2) are interchangeable. Every property treats flows alike, so a state and its
    /// renamings are all safe or all unsafe, at the same depth.
    pub fn symmetries(&self) -> Vec<[u8; 3]> {
        let n = self.flows as usize;
        let pattern = |flow: u8| -> Vec<i64> {
            (1..=self.events)
                .map(|seq| self.schema(Ev { flow, seq }))
                .collect()
        };
        let mut out = Vec::new();
        for a in 0..3u8 {
            for b in 0..3u8 {
                for c in 0..3u8 {
                    let perm = [a, b, c];
                    let is_perm = perm[..n].iter().all(|x| (*x as usize) < n)
                        && (0..n).all(|i| perm[..n].contains(&(i as u8)))
                        && perm[n..]
                            .iter()
                            .enumerate()
                            .all(|(i, x)| *x as usize == n + i);
                    if is_perm && (0..n as u8).all(|i| pattern(i) == pattern(perm[i as usize])) {
                        out.push(perm);
                    }
                }
            }
        }
        out
    }

    /// Small enough to run without asking: at most the page's default (2 flows × 3 events × 1 resend × 1 crash,
    /// seconds in a browser). A link to anything larger fills the knobs and waits for *Check*.
    pub fn is_quick(&self) -> bool {
        self.flows * self.events <= 6
            && self.resends <= 1
            && self.crashes <= 1
            && self.power_cuts <= 1
    }

    /// The configuration as a query (`flows=2&events=3&resends=1&crashes=1&consumer=strict&producer=atomic`,
    /// then `&schema2=A2,B1` if any): the page's share link and its worker's job.
    pub fn to_query(&self) -> String {
        let mut q = format!(
            "flows={}&events={}&resends={}&crashes={}&consumer={}&producer={}",
            self.flows,
            self.events,
            self.resends,
            self.crashes,
            self.consumer.name(),
            self.producer.name()
        );
        if !self.schema2.is_empty() {
            q.push_str("&schema2=");
            q.push_str(&self.schema2.join(","));
        }
        if let Some(rule) = &self.rule {
            q.push_str("&rule=");
            q.push_str(&percent_encode(rule.sql()));
            q.push_str("&effect=");
            q.push_str(rule.effect().name());
        }
        if self.power_cuts > 0 {
            q.push_str(&format!("&power_cuts={}", self.power_cuts));
        }
        // Written whenever it is not the default, so a link reads back to the knobs as they were set.
        if self.power_cuts > 0 || self.synchronous != Synchronous::Full {
            q.push_str(&format!("&synchronous={}", self.synchronous.name()));
        }
        if self.symmetry {
            q.push_str("&symmetry=1");
        }
        q
    }

    /// Whether a state keeps each database's synced image: power cuts under `normal`, where a cut goes back to
    /// the last checkpoint (under `full` every commit is synced).
    pub fn keeps_images(&self) -> bool {
        self.power_cuts > 0 && self.synchronous == Synchronous::Normal
    }

    /// The steps a history starts with: `set_synchronous` when the search cuts the power under `normal`.
    pub fn prelude(&self) -> Vec<Step> {
        if self.keeps_images() {
            vec![Step::SetSynchronous {
                mode: Synchronous::Normal,
            }]
        } else {
            Vec::new()
        }
    }

    /// The consumer a session of this configuration runs.
    pub fn setup(&self) -> ConsumerSetup {
        ConsumerSetup {
            ordering: self.consumer,
            rule: self.rule.clone(),
            support_v2: false,
        }
    }

    /// Whether the state holds the inbox's arrival order: only for a rule that reads `arrival` (RULE.md).
    pub fn arrival_matters(&self) -> bool {
        self.rule.as_ref().is_some_and(|r| r.reads_arrival())
    }

    /// Sets one knob from its text, as `--flows 2` or `flows=2` gives it: `Ok(false)` for a name that is not a
    /// knob; a refusal names the knob and its range. (Whether `schema2` names events of the configuration is
    /// [`Config::validate`]'s, once every knob is set.)
    pub fn set(&mut self, key: &str, value: &str) -> Result<bool, String> {
        let number = |min: u8, max: u8| -> Result<u8, String> {
            value
                .parse::<u8>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| {
                    format!("{key} must be a whole number from {min} to {max}, got `{value}`")
                })
        };
        match key {
            "flows" => self.flows = number(1, 3)?,
            "events" => self.events = number(1, 3)?,
            "resends" => self.resends = number(0, 3)?,
            "crashes" => self.crashes = number(0, 3)?,
            "consumer" => {
                self.consumer = Ordering::from_name(value).ok_or_else(|| {
                    format!(
                        "consumer must be one of {}, got `{value}`",
                        Ordering::ALL.map(Ordering::name).join(", ")
                    )
                })?
            }
            "producer" => {
                self.producer = WriteMode::from_name(value).ok_or_else(|| {
                    format!("producer must be atomic or unsafe_dual_write, got `{value}`")
                })?
            }
            "schema2" => self.schema2 = Config::parse_schema2(value),
            "power_cuts" => self.power_cuts = number(0, 2)?,
            "synchronous" => {
                self.synchronous = Synchronous::from_name(value)
                    .filter(|s| *s != Synchronous::Off)
                    .ok_or_else(|| format!("synchronous must be full or normal, got `{value}`"))?
            }
            "symmetry" => {
                self.symmetry = match value {
                    "1" => true,
                    "0" => false,
                    _ => return Err(format!("symmetry must be 0 or 1, got `{value}`")),
                }
            }
            "rule" => {
                let sql = percent_decode(value);
                let effect = self
                    .rule
                    .as_ref()
                    .map_or(RuleEffect::default(), |r| r.effect());
                let rule =
                    Rule::new(&sql, effect).map_err(|r| format!("rule: {}", r.located(&sql)))?;
                self.rule = Some(rule);
                self.consumer = Ordering::Rule;
            }
            "effect" => {
                let effect = RuleEffect::from_name(value).ok_or_else(|| {
                    format!(
                        "effect must be one of {}, got `{value}`",
                        RuleEffect::listed()
                    )
                })?;
                match &self.rule {
                    Some(rule) => self.rule = Some(rule.with_effect(effect)),
                    None => return Err("effect belongs to a rule: give the rule first".into()),
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Reads [`Config::to_query`]'s form; a missing knob keeps the default. A refusal names the part that is
    /// wrong. Parts this does not know are returned for the caller to report or use (`verdict=holds`).
    pub fn from_query(query: &str) -> Result<(Config, Vec<(String, String)>), String> {
        let mut config = Config::default();
        let mut rest = Vec::new();
        for part in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            if !config.set(key, value)? {
                rest.push((key.to_owned(), value.to_owned()));
            }
        }
        config.validate()?;
        Ok((config, rest))
    }

    /// The `advance` step that produces `ev` (`expected_seq` = its seq − 1).
    pub fn advance(&self, ev: Ev) -> Step {
        Step::advance(
            ev.flow_id(),
            ev.id(),
            i64::from(ev.seq) - 1,
            ev.kind(),
            self.schema(ev),
        )
    }
}

/// A rule's text in a query: every byte but `A–Z a–z 0–9 - _ . ~` as `%XX`.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The inverse of [`percent_encode`] (`+` is a space, as a form writes it); a `%` not followed by two hex digits
/// stays as it is, and bytes that are not UTF-8 become U+FFFD.
pub fn percent_decode(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
