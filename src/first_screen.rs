//! The page's first screen: the header, which the page draws first, alone, and which the build also
//! prerenders into `index.html` (both languages), so a reader sees it before the module has arrived.
//!
//! One function draws it both times. In the browser it is Yew's client renderer; natively, Yew's server
//! renderer (`prerender`, run by the `prerender` binary as a Trunk hook). The page removes the prerendered copy
//! in the same task as it draws its own, so nothing moves and nothing paints twice.

use crate::i18n::{t, tf, Lang};
use yew::prelude::*;

/// The article this page belongs to: its title, author and address (`../shared/seed`).
pub const ARTICLE_TITLE: &str = "Agent 可靠执行实战（十一）：消息没丢也没重复，流程为什么走反了？";
pub const ARTICLE_AUTHOR: &str = "芝士AI吃鱼";
pub const ARTICLE_URL: &str =
    "https://ai-knowledgepoints.cn/blog/agent-reliability-11-ordered-outbox-inbox";

/// The page's header, drawn alone by the page's first render and then with the player, the same both times
/// (nothing moves when the player arrives), and prerendered by the build. No header in an embed.
pub fn header(lang: Lang, embed: bool, switch_lang: Option<Callback<MouseEvent>>) -> Html {
    if embed {
        return html! {};
    }
    html! {
        <header class="top">
            <div>
                <h1>{ t(lang, "title") }</h1>
                <p class="intro">{ t(lang, "intro") }</p>
                <p class="source" data-testid="article-link">{ t(lang, "article.from") }
                    <a href={ARTICLE_URL} lang="zh-Hans" hreflang="zh-Hans">{ ARTICLE_TITLE }</a>
                    { tf(lang, "article.by", &[ARTICLE_AUTHOR]) }</p>
            </div>
            // Named by its visible text, the other language's own name, in that language (WCAG 2.5.3: the
            // accessible name contains the visible label); what it does is its title.
            <button class="lang" data-testid="lang-switch" onclick={switch_lang}
                lang={lang.other().tag()} title={t(lang, "lang.switch.label")}>{ t(lang, "lang.switch") }</button>
        </header>
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod prerender {
    use super::*;

    #[derive(Properties, PartialEq)]
    struct Props {
        lang: Lang,
    }

    #[component]
    fn FirstScreen(props: &Props) -> Html {
        header(props.lang, false, None)
    }

    /// The header as HTML, as the page's first render draws it in `lang` (no hydration markers: the page draws
    /// its own and drops this one).
    pub fn prerender(lang: Lang) -> String {
        let renderer = yew::ServerRenderer::<FirstScreen>::with_props(move || Props { lang })
            .hydratable(false);
        futures::executor::block_on(renderer.render())
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub use prerender::prerender;
