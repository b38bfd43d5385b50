//! What the build hands the page (the levels and the page's words for them, in one file) and a level carried
//! whole in a link (a reader's rule as a challenge).

use super::{from_value, parse, Level, LEVEL_FORMAT, MAX_LEVEL_BYTES};
use crate::checker::{Config, Property};
use crate::json::Fields;
use serde_json::Value;

/// The levels and the page's words for them, as the build hands them to the page (`levels.json` beside
/// `index.html`, fetched when a level opens: none of it is in the page's first load).
#[derive(Debug)]
pub struct Bundle {
    pub levels: Vec<Level>,
    /// The page's words for levels, by language (`src/i18n/levels.json`).
    pub words: serde_json::Map<String, Value>,
}

pub const BUNDLE_FORMAT: &str = "outbox-playground-levels/1";

/// The bundle the build writes: the level files' texts (each validated) in file order, and the page's words for
/// levels (`{"en": {…}, "zh": {…}}`, the same keys in both).
pub fn bundle(level_texts: &[(String, String)], words_text: &str) -> Result<String, String> {
    let mut levels = Vec::new();
    let mut ids = Vec::new();
    for (name, text) in level_texts {
        let level = parse(text).map_err(|e| format!("{name}: {e}"))?;
        if ids.contains(&level.id) {
            return Err(format!(
                "{name}: the id `{}` is another level's too",
                level.id
            ));
        }
        ids.push(level.id);
        levels.push(serde_json::from_str::<Value>(text).map_err(|e| format!("{name}: {e}"))?);
    }
    let words: Value = serde_json::from_str(words_text)
        .map_err(|e| format!("the levels' words are not valid JSON: {e}"))?;
    let keys = |lang: &str| -> Result<Vec<String>, String> {
        let map = words
            .get(lang)
            .and_then(Value::as_object)
            .ok_or_else(|| format!("the levels' words have no `{lang}` object"))?;
        if let Some((k, _)) = map.iter().find(|(_, v)| !v.is_string()) {
            return Err(format!("the levels' words: `{lang}.{k}` is not a string"));
        }
        Ok(map.keys().cloned().collect())
    };
    let (en, zh) = (keys("en")?, keys("zh")?);
    if let Some(k) = en.iter().find(|k| !zh.contains(k)) {
        return Err(format!("the levels' words: `{k}` is in English only"));
    }
    if let Some(k) = zh.iter().find(|k| !en.contains(k)) {
        return Err(format!("the levels' words: `{k}` is in Chinese only"));
    }
    serde_json::to_string(&serde_json::json!({
        "format": BUNDLE_FORMAT,
        "levels": levels,
        "words": words,
    }))
    .map_err(|e| e.to_string())
}

/// Reads the bundle [`bundle`] wrote (what the page fetched: validated again, it came over the network).
pub fn read_bundle(text: &str) -> Result<Bundle, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("the levels are not valid JSON: {e}"))?;
    let mut f = Fields::new(value).map_err(|e| format!("the levels {e}"))?;
    match f.take("format") {
        Some(Value::String(s)) if s == BUNDLE_FORMAT => {}
        _ => return Err(format!("the levels are not in the format {BUNDLE_FORMAT}")),
    }
    let levels = match f.take("levels") {
        Some(Value::Array(list)) => list
            .into_iter()
            .enumerate()
            .map(|(i, v)| from_value(v).map_err(|e| format!("level {}: {e}", i + 1)))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err("the levels' bundle has no list `levels`".into()),
    };
    let words = f.object("words")?;
    Ok(Bundle { levels, words })
}

/// The fragment key of a challenge link: `#level=…`, a level carried whole (a reader's rule to break).
pub const LINK_KEY: &str = "level=";

/// The level a reader's rule makes (*Challenge someone to break this*): the rule as the consumer, the page
/// checker's default bounds, and the words `words` gives (`{"en": {title, claim, …}, "zh": {…}}`).
pub fn challenge(rule: &crate::protocol::rule::Rule, words: Value) -> Value {
    let config = Config::default();
    serde_json::json!({
        "format": LEVEL_FORMAT,
        "id": "challenge",
        "section": "§5",
        "consumer": { "ordering": "rule", "rule": rule.sql(), "effect": rule.effect().name() },
        "flows": config.flows,
        "events": config.events,
        "resends": config.resends,
        "crashes": config.crashes,
        "break": Property::ConsumerInvariant.name(),
        "words": words,
    })
}

/// The fragment (without `#`) that carries `level` whole: `level=` + base64url(raw DEFLATE(JSON)).
pub fn to_link(level: &Value) -> String {
    format!(
        "{LINK_KEY}{}",
        crate::share::base64url_encode(&crate::deflate::compress(level.to_string().as_bytes()))
    )
}

/// The level a challenge link carries (`#level=…`), validated as a level file is: nothing in it is trusted.
pub fn from_link(fragment: &str) -> Result<Level, String> {
    let err = |m: String| format!("the challenge link: {m}");
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let payload = fragment
        .strip_prefix(LINK_KEY)
        .ok_or_else(|| err(format!("expected #{LINK_KEY}…")))?;
    if payload.is_empty() {
        return Err(err("the level after #level= is empty".into()));
    }
    if payload.len() > MAX_LEVEL_BYTES * 2 {
        return Err(err(format!(
            "{} characters is too long for a level",
            payload.len()
        )));
    }
    let packed = crate::share::base64url_decode(payload).map_err(err)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_LEVEL_BYTES)
        .map_err(|_| {
            err("the data is not a packed level (it may be truncated or altered)".into())
        })?;
    let text = String::from_utf8(json).map_err(|_| err("the level is not UTF-8 text".into()))?;
    parse(&text).map_err(err)
}
