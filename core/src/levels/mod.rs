//! Break-it levels as data (`levels/*.json`, format in `docs/levels.md`): the consumer the reader attacks, the
//! bounds of the game (flows, events, resends, exits, power cuts), the property to break and the level's words in English
//! and Chinese. A level is untrusted input like a trace: [`parse`] refuses a bad one whole and names what is
//! wrong. Its bounds are a checker configuration, so the checker computes its par and proves the last level.

use crate::checker::{Config, Property};
use crate::json::{json_type, short_json, short_str, Fields};
use crate::protocol::{Synchronous, WriteMode};
use serde_json::Value;

mod bundle;
pub mod code;
mod progress;
pub use bundle::{
    bundle, challenge, from_link, read_bundle, to_link, Bundle, BUNDLE_FORMAT, LINK_KEY,
};
pub use progress::{Bet, Progress, Record};

pub const LEVEL_FORMAT: &str = "outbox-playground-level/1";

/// Levels are small; a larger file is refused before it is read as JSON.
pub const MAX_LEVEL_BYTES: usize = 64 * 1024;

/// A level's words in one language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Words {
    pub title: String,
    /// The claim the reader bets on and tries to break ("this consumer never runs a flow backwards").
    pub claim: String,
    /// What the reader must make happen, in one sentence ("Make the consumer apply A2 before A1"). Optional
    /// only so that a challenge link made before goals existed still opens; every level file has one.
    pub goal: Option<String>,
    /// The bet's two answers, in the level's words.
    pub bet_hold: String,
    pub bet_break: String,
    /// What the verdict says when the reader breaks it (the unwinnable level: when the proof comes).
    pub win: String,
    /// What the level teaches, one or two sentences in the article's words.
    pub lesson: String,
}

#[derive(Clone, Debug)]
pub struct Level {
    /// Lower case letters, digits and hyphens: the level's address (`?level=…`) and its progress key.
    pub id: String,
    /// The article's section it belongs to (`§5`).
    pub section: String,
    /// The checker's configuration: consumer, producer and the reader's budgets.
    pub config: Config,
    /// The property to break (CHECKER.md's words).
    pub property: Property,
    /// The strict protocol: nothing within the bounds breaks it, and the checker proves so.
    pub unbreakable: bool,
    pub en: Words,
    pub zh: Words,
}

/// Parses and validates a level. Every refusal names the field and what is wrong with it.
pub fn parse(text: &str) -> Result<Level, String> {
    if text.len() > MAX_LEVEL_BYTES {
        return Err(format!(
            "the level is {} bytes; at most {MAX_LEVEL_BYTES} are allowed",
            text.len()
        ));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("the level is not valid JSON: {e}"))?;
    from_value(value)
}

const FIELDS: [&str; 15] = [
    "format",
    "id",
    "section",
    "consumer",
    "producer",
    "flows",
    "events",
    "schema2",
    "resends",
    "crashes",
    "power_cuts",
    "synchronous",
    "break",
    "unbreakable",
    "words",
];

pub fn from_value(value: Value) -> Result<Level, String> {
    let mut f = Fields::new(value).map_err(|e| format!("a level {e}"))?;
    if let Some(other) = f.unknown(&FIELDS) {
        return Err(format!("unknown field `{}`", short_str(other)));
    }
    match f.take("format") {
        Some(Value::String(s)) if s == LEVEL_FORMAT => {}
        Some(other) => {
            return Err(format!(
                "field `format` must be \"{LEVEL_FORMAT}\", got {}",
                short_json(&other)
            ))
        }
        None => return Err(format!("missing field `format` (\"{LEVEL_FORMAT}\")")),
    }
    let id = required(&mut f, "id", |f| f.string("id"))?;
    if id.is_empty()
        || id.len() > 40
        || !id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(format!(
            "field `id` must be 1–40 lower-case letters, digits and hyphens, got \"{}\"",
            short_str(&id)
        ));
    }
    let section = required(&mut f, "section", |f| f.string("section"))?;
    if !section.starts_with('§') {
        return Err(format!(
            "field `section` must name the article's section (\"§5\"), got \"{}\"",
            short_str(&section)
        ));
    }
    let consumer = required(&mut f, "consumer", |f| {
        let raw = f.take("consumer").unwrap_or(Value::Null);
        crate::trace::read::consumer_from_value(raw)
    })?;
    if consumer.support_v2 {
        return Err(
            "field `consumer`: `support_v2` is not a level's (the checker keeps it false)".into(),
        );
    }
    let producer = if f.has("producer") {
        f.word("producer")?
    } else {
        WriteMode::Atomic
    };
    let count = |f: &mut Fields, name: &str| -> Result<u8, String> {
        let n = required(f, name, |f| f.int(name))?;
        u8::try_from(n).map_err(|_| format!("field `{name}` must be from 0 to 3, got {n}"))
    };
    let (flows, events) = (count(&mut f, "flows")?, count(&mut f, "events")?);
    let (resends, crashes) = (count(&mut f, "resends")?, count(&mut f, "crashes")?);
    let power_cuts = if f.has("power_cuts") {
        count(&mut f, "power_cuts")?
    } else {
        0
    };
    let synchronous = if f.has("synchronous") {
        f.word("synchronous")?
    } else {
        Synchronous::Full
    };
    let schema2 = match f.take("schema2") {
        None => Vec::new(),
        Some(Value::Array(ids)) => ids
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(format!(
                    "field `schema2` must list event ids, got {}",
                    json_type(&other)
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "field `schema2` must be a list of event ids, got {}",
                json_type(&other)
            ))
        }
    };
    let property: Property = required(&mut f, "break", |f| f.word("break"))?;
    if property == Property::RuleAnswers {
        return Err("field `break` must be `consumer_invariant`, `no_loss` or `completion`".into());
    }
    let unbreakable = f.has("unbreakable") && f.bool("unbreakable")?;
    let config = Config {
        flows,
        events,
        resends,
        crashes,
        schema2,
        consumer: consumer.ordering,
        rule: consumer.rule,
        producer,
        power_cuts,
        synchronous,
        symmetry: false,
    };
    config.validate()?;
    let words = required(&mut f, "words", |f| f.object("words"))?;
    let mut words = Fields::new(Value::Object(words))?;
    if let Some(other) = words.unknown(&["en", "zh"]) {
        return Err(format!(
            "field `words`: unknown language `{}`, expected `en` and `zh`",
            short_str(other)
        ));
    }
    let mut lang = |name: &str| -> Result<Words, String> {
        let raw = words.take(name).ok_or_else(|| {
            format!("field `words`: missing `{name}` (both languages are needed)")
        })?;
        language(raw).map_err(|e| format!("field `words.{name}`: {e}"))
    };
    let (en, zh) = (lang("en")?, lang("zh")?);
    Ok(Level {
        id,
        section,
        config,
        property,
        unbreakable,
        en,
        zh,
    })
}

fn required<T>(
    f: &mut Fields,
    name: &str,
    read: impl FnOnce(&mut Fields) -> Result<T, String>,
) -> Result<T, String> {
    if !f.has(name) {
        return Err(format!("missing field `{name}`"));
    }
    // A message from the field's own reader names it already; one from inside it (a consumer's) gets its name.
    read(f).map_err(|e| {
        if e.starts_with(&format!("field `{name}`")) {
            e
        } else {
            format!("field `{name}`: {e}")
        }
    })
}

/// A level's words in one language, by field (a challenge's are the page's `challenge.*` words).
pub const WORDS: [&str; 7] = [
    "title",
    "claim",
    "goal",
    "bet_hold",
    "bet_break",
    "win",
    "lesson",
];

fn language(raw: Value) -> Result<Words, String> {
    let mut f = Fields::new(raw)?;
    if let Some(other) = f.unknown(&WORDS) {
        return Err(format!("unknown field `{}`", short_str(other)));
    }
    let has_goal = f.has("goal");
    let mut text = |name: &str| -> Result<String, String> {
        let s = required(&mut f, name, |f| f.string(name))?;
        match s.trim().chars().count() {
            0 => Err(format!("field `{name}` is empty")),
            n if n > 600 => Err(format!("field `{name}` is {n} characters; at most 600")),
            _ => Ok(s),
        }
    };
    Ok(Words {
        title: text("title")?,
        claim: text("claim")?,
        goal: if has_goal { Some(text("goal")?) } else { None },
        bet_hold: text("bet_hold")?,
        bet_break: text("bet_break")?,
        win: text("win")?,
        lesson: text("lesson")?,
    })
}

/// The level files of `dir` (`*.json`) in name order, as the CLI checks them and the build bundles them; a
/// directory without one is refused. (The page never calls it: it fetches the bundle the build made with it.)
pub fn files(dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the directory {}: {e}", dir.display()))?;
    let mut files: Vec<std::path::PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{} holds no level (*.json)", dir.display()));
    }
    Ok(files)
}
