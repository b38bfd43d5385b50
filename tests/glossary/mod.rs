//! What the tests of Chinese text share: the glossary's synonyms a text uses (`outbox_core::lang::glossary`).

use outbox_core::lang::glossary::TERMS;

/// Each synonym `text` uses outside the article's own longer words, as "synonym where the page says word (en)".
pub fn synonyms(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for term in TERMS {
        let mut rest = text.to_owned();
        for compound in term.compounds {
            rest = rest.replace(compound, "");
        }
        for not in term.not {
            if rest.contains(not) {
                found.push(format!(
                    "{not} where the page says {} ({})",
                    term.zh, term.en
                ));
            }
        }
    }
    found
}
