//! The two languages of the page and of the CLI's explanations: the business states glossed, the core's refusals
//! in Chinese ([`messages`]).

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
