//! A level's words, both languages, as fetched with the levels; the panel's parts read them through `Ctx`.

use crate::ui::i18n::Lang;
use serde_json::{Map, Value};
use std::rc::Rc;

/// The page's words for levels, both languages (`src/i18n/levels.json`, fetched with the levels).
#[derive(Clone, Default)]
pub struct Words(Rc<Map<String, Value>>);

impl Words {
    pub fn new(words: Rc<Map<String, Value>>) -> Words {
        Words(words)
    }

    /// Not fetched yet.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn t(&self, lang: Lang, key: &str) -> String {
        let tag = if lang == Lang::Zh { "zh" } else { "en" };
        self.0
            .get(tag)
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .unwrap_or(key)
            .to_owned()
    }

    pub fn tf(&self, lang: Lang, key: &str, args: &[&str]) -> String {
        crate::ui::i18n::fill(self.t(lang, key), args)
    }

    /// The challenge level's words in both languages, as a level file holds them.
    pub fn challenge(&self) -> Value {
        let lang = |lang| {
            let mut o = Map::new();
            for key in outbox_core::levels::WORDS {
                o.insert(key.into(), self.t(lang, &format!("challenge.{key}")).into());
            }
            Value::Object(o)
        };
        serde_json::json!({ "en": lang(Lang::En), "zh": lang(Lang::Zh) })
    }
}
