//! Trunk's post-build hook (Trunk.toml): writes the page's first screen (the header, in both languages) into
//! the built `index.html`, so it paints before the module has arrived. `www/page-start.js` shows the reader's
//! language and hides both in an embed; the page drops them when it draws its own (`first_screen`).
//!
//! Usage: `prerender [FILE]` (default: `$TRUNK_STAGING_DIR/index.html`).

#[cfg(not(target_arch = "wasm32"))]
use outbox_playground::first_screen::prerender;
#[cfg(not(target_arch = "wasm32"))]
use outbox_playground::i18n::Lang;
#[cfg(not(target_arch = "wasm32"))]
use std::process::ExitCode;

/// Natively only: the page's build runs it.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> ExitCode {
    let path = match std::env::args().nth(1) {
        Some(path) => std::path::PathBuf::from(path),
        None => match std::env::var_os("TRUNK_STAGING_DIR") {
            Some(dir) => std::path::Path::new(&dir).join("index.html"),
            None => {
                eprintln!("prerender: name the page to write into, or run it as a Trunk hook (TRUNK_STAGING_DIR is not set)");
                return ExitCode::from(2);
            }
        },
    };
    let page = match std::fs::read_to_string(&path) {
        Ok(page) => page,
        Err(e) => {
            eprintln!("prerender: cannot read {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    // The levels beside the page, in one file it fetches when a level opens (not in its first load).
    let levels = path.with_file_name("levels.json");
    if let Err(e) = levels_bundle().and_then(|text| {
        std::fs::write(&levels, text).map_err(|e| format!("cannot write {}: {e}", levels.display()))
    }) {
        eprintln!("prerender: the levels: {e}");
        return ExitCode::FAILURE;
    }
    // The interleavings' recording and the panel's words, in one file it fetches when its panel opens.
    let postgres = path.with_file_name("postgres.json");
    if let Err(e) = postgres_bundle().and_then(|text| {
        std::fs::write(&postgres, text)
            .map_err(|e| format!("cannot write {}: {e}", postgres.display()))
    }) {
        eprintln!("prerender: the interleavings: {e}");
        return ExitCode::FAILURE;
    }
    match into_page(&page) {
        Ok(page) => match std::fs::write(&path, page) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("prerender: cannot write {}: {e}", path.display());
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("prerender: {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}

/// `levels/*.json` in name order and the page's words for them, validated, as one file.
#[cfg(not(target_arch = "wasm32"))]
fn levels_bundle() -> Result<String, String> {
    let read = |path: &std::path::Path| {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let texts = outbox_core::levels::files("levels".as_ref())?
        .iter()
        .map(|p| Ok((p.display().to_string(), read(p)?)))
        .collect::<Result<Vec<_>, String>>()?;
    outbox_core::levels::bundle(&texts, &read("src/i18n/levels.json".as_ref())?)
}

/// `specs/isolation/interleavings.json` (`experiments interleave --all --record`) and the panel's words
/// (`src/i18n/postgres.json`), as one compact document.
#[cfg(not(target_arch = "wasm32"))]
fn postgres_bundle() -> Result<String, String> {
    let read = |path: &str| -> Result<serde_json::Value, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
    };
    let bundle = serde_json::json!({
        "words": read("src/i18n/postgres.json")?,
        "table": read("specs/isolation/interleavings.json")?,
    });
    Ok(bundle.to_string())
}

/// `html` without its `data-testid` attributes: a test id names the live page's one element (the prerendered
/// copies are gone by the time a test could click them).
#[cfg(not(target_arch = "wasm32"))]
fn without_test_ids(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find(" data-testid=\"") {
        out.push_str(&rest[..at]);
        let value = &rest[at + " data-testid=\"".len()..];
        rest = value.find('"').map_or("", |end| &value[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// The page with both headers right after `<body>`, each marked `data-prerender` with its language's tag.
#[cfg(not(target_arch = "wasm32"))]
fn into_page(page: &str) -> Result<String, String> {
    // The element, not the attribute: the inlined stylesheet and start-up script name `[data-prerender]` too.
    if page.contains("<header data-prerender=") {
        return Err("already has a prerendered first screen".into());
    }
    let open = page.find("<body").ok_or("no <body> element")?;
    let at = open + page[open..].find('>').ok_or("an unclosed <body> tag")? + 1;
    let mut out = String::with_capacity(page.len() + 2048);
    out.push_str(&page[..at]);
    for lang in [Lang::En, Lang::Zh] {
        let html = prerender(lang);
        let rest = html
            .strip_prefix("<header ")
            .ok_or("the first screen does not start with <header>")?;
        // Its own `lang` too: without script or styles, the Chinese copy still says what language it is in.
        out.push_str(&format!(
            "<header data-prerender=\"{0}\" lang=\"{0}\" ",
            lang.tag()
        ));
        out.push_str(&without_test_ids(rest));
    }
    out.push_str(&page[at..]);
    Ok(out)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn both_headers_go_right_after_body_without_test_ids() {
        let page = into_page(
            "<html><head><title>x</title></head><body class=a><noscript>n</noscript></body></html>",
        )
        .unwrap();
        let en = page
            .find("<header data-prerender=\"en\" lang=\"en\" class=\"top\">")
            .unwrap();
        let zh = page
            .find("<header data-prerender=\"zh-Hans\" lang=\"zh-Hans\" class=\"top\">")
            .unwrap();
        assert!(page.find("<body class=a>").unwrap() < en && en < zh);
        assert!(zh < page.find("<noscript>").unwrap());
        assert!(page.contains("<h1>Ordered outbox / inbox playground</h1>"));
        assert!(page.contains("<h1>有序 outbox / inbox 实验台</h1>"));
        assert!(!page.contains("data-testid"), "{page}");
        assert!(
            page.contains("lang=\"zh-Hans\""),
            "the language switch keeps its attributes"
        );
    }

    #[test]
    fn a_page_without_a_body_or_already_done_is_refused() {
        assert_eq!(into_page("<html></html>").unwrap_err(), "no <body> element");
        let once = into_page("<body></body>").unwrap();
        assert!(into_page(&once).unwrap_err().contains("already"));
        // A page whose inlined styles select the copies is not taken for one that has them.
        let styled = "<style>[data-prerender]{display:none}</style><body></body>";
        assert!(into_page(styled)
            .unwrap()
            .contains("<header data-prerender=\"en\""));
    }
}
