//! The two languages of the page and of the CLI's explanations: the business states glossed, the core's refusals
//! in Chinese ([`messages`]).

pub mod glossary;
pub mod messages;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// The BCP 47 tag for `<html lang>`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-Hans",
        }
    }

    /// As an address names it (`lang=zh`).
    pub fn address(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    pub fn from_tag(tag: &str) -> Option<Lang> {
        let tag = tag.to_ascii_lowercase();
        if tag.starts_with("zh") {
            Some(Lang::Zh)
        } else if tag.starts_with("en") {
            Some(Lang::En)
        } else {
            None
        }
    }

    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }
}

/// A business state as the page shows it: in Chinese, the article's word beside the identifier
/// (`reserved（预留）`); protocol identifiers and English stay as they are.
pub fn gloss(lang: Lang, kind: &str) -> String {
    let zh = match kind {
        "new" => "新建",
        "reserved" => "预留",
        "confirmed" => "确认",
        "released" => "释放",
        _ => return kind.to_owned(),
    };
    match lang {
        Lang::En => kind.to_owned(),
        Lang::Zh => format!("{kind}（{zh}）"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page opens in the browser's language when it is one of the two, and the switch offers the other.
    #[test]
    fn a_browser_language_picks_the_page_language() {
        for (tag, lang) in [
            ("zh-CN", Some(Lang::Zh)),
            ("ZH-Hant-TW", Some(Lang::Zh)),
            ("zh", Some(Lang::Zh)),
            ("en-GB", Some(Lang::En)),
            ("EN", Some(Lang::En)),
            ("fr-FR", None),
            ("", None),
        ] {
            assert_eq!(Lang::from_tag(tag), lang, "{tag:?}");
        }
        assert_eq!(Lang::En.other(), Lang::Zh);
        assert_eq!(Lang::Zh.other(), Lang::En);
        assert_eq!(Lang::from_tag(Lang::Zh.tag()), Some(Lang::Zh));
    }
}
