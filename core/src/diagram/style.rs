//! The exported file's look: the page's palette, light or dark, and its fonts, inline in a `<style>`.

/// The exported file's styles: the page's palette, light or dark, and its fonts, inline.
pub(super) fn file_style(dark: bool) -> String {
    let (bg, fg, muted, line, bad, ok, warn, band, f) = if dark {
        (
            "#121417",
            "#e6e8ea",
            "#9aa3ad",
            "#30353b",
            "#ff6b5f",
            "#4cc38a",
            "#f0b45c",
            "#2a2410",
            ["#7aa2ff", "#b794f6", "#4fd1c5", "#f0b45c"],
        )
    } else {
        (
            "#fbfbf8",
            "#1d2327",
            "#5d6670",
            "#d9dcd6",
            "#b42318",
            "#16794a",
            "#9a5b00",
            "#fff1b8",
            ["#2457c5", "#6d3fc0", "#0b7a75", "#9a5b00"],
        )
    };
    format!(
        "<style>svg{{background:{bg}}}text{{font:12px system-ui,-apple-system,'Segoe UI','PingFang SC','Noto Sans CJK SC',sans-serif;fill:{fg}}}\
.head,.sub{{fill:{muted}}}.head{{font-weight:600}}.sub,.why,.num{{font-size:11px;fill:{muted}}}.lane{{stroke:{line};stroke-width:2}}\
.band{{fill:transparent}}.now .band{{fill:{band}}}.later line,.later circle,.later path,.later .box{{opacity:.4}}.later text{{fill:{muted}}}.bad{{fill:{bad};font-weight:600}}.ok{{fill:{ok}}}\
.msg{{stroke-width:2}}.cut{{stroke:{bad};stroke-width:2.5;stroke-dasharray:6 3}}.cut.power{{stroke:{warn};stroke-width:4;stroke-dasharray:2 3}}.restart{{stroke:{ok};stroke-width:1.5}}.rs{{font-size:10px}}\
.violation{{fill:none;stroke:{bad};stroke-width:2.5}}.box{{fill:{muted}}}.box.gap{{fill:{warn}}}.box.blocked{{fill:{bad}}}.dot.off{{fill:{muted}}}\
.duplicate{{stroke-dasharray:4 3;opacity:.7}}.id_conflict,.sequence_conflict{{stroke:{bad}!important;fill:{bad}!important}}\
.f0{{stroke:{f0};fill:{f0}}}.f1{{stroke:{f1};fill:{f1}}}.f2{{stroke:{f2};fill:{f2}}}.f3{{stroke:{f3};fill:{f3}}}</style>",
        f0 = f[0],
        f1 = f[1],
        f2 = f[2],
        f3 = f[3]
    )
}
