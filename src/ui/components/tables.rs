//! A real `<table>` with headers, rows highlighted when the latest step changed them.

use crate::ui::i18n::t;
use crate::ui::Ctx;
use yew::prelude::*;

/// One table row: its cells, whether the latest step changed it, and test attributes.
#[derive(Clone, PartialEq)]
pub struct Row {
    pub cells: Vec<String>,
    pub changed: bool,
    pub testid: Option<String>,
    pub state: Option<String>,
}

#[derive(Properties, PartialEq)]
pub struct TableProps {
    pub caption: String,
    pub headers: Vec<&'static str>,
    pub rows: Vec<Row>,
    #[prop_or_default]
    pub testid: Option<String>,
}

#[component]
pub fn Table(props: &TableProps) -> Html {
    let lang = use_context::<Ctx>().map(|m| m.lang).unwrap_or_default();
    html! {
        <div class="table-scroll">
        <table data-testid={props.testid.clone()}>
            <caption>{ &props.caption }</caption>
            <thead><tr>{ for props.headers.iter().map(|h| html! { <th scope="col">{ *h }</th> }) }</tr></thead>
            <tbody translate="no">
                if props.rows.is_empty() {
                    <tr class="empty" translate="yes"><td colspan={props.headers.len().to_string()}>{ t(lang, "table.empty") }</td></tr>
                }
                { for props.rows.iter().map(|r| html! {
                    <tr class={classes!(r.changed.then_some("changed"), r.state.clone())}
                        data-testid={r.testid.clone()} data-state={r.state.clone()}>
                        { for r.cells.iter().map(|c| html! { <td>{ c }</td> }) }
                    </tr>
                }) }
            </tbody>
        </table>
        </div>
    }
}

/// Builds rows from `now`, marking those not present (equal) in `before`.
pub fn rows<T: PartialEq>(
    now: &[T],
    before: &[T],
    cells: impl Fn(&T) -> Vec<String>,
    extra: impl Fn(&T) -> (Option<String>, Option<String>),
) -> Vec<Row> {
    now.iter()
        .map(|r| {
            let (testid, state) = extra(r);
            Row {
                cells: cells(r),
                changed: !before.contains(r),
                testid,
                state,
            }
        })
        .collect()
}
