//! Writing the diagram's SVG text: marks from templates, numbers and escaped reader text, without the
//! formatting machinery (each `write!` call site cost the page kilobytes).

/// Appends `template` with each `#` replaced by the next of `nums` and each `$` by the next of `texts`,
/// escaped. One plain loop instead of a `write!` per mark: the formatting machinery of each call site cost the
/// page several kilobytes.
#[inline(never)]
pub(super) fn emit(s: &mut String, template: &str, nums: &[usize], texts: &[&str]) {
    let (mut nums, mut texts) = (nums.iter(), texts.iter());
    for c in template.chars() {
        match c {
            '#' => {
                if let Some(&v) = nums.next() {
                    push_num(s, v);
                }
            }
            '$' => {
                if let Some(t) = texts.next() {
                    push_esc(s, t);
                }
            }
            c => s.push(c),
        }
    }
}

fn push_num(s: &mut String, mut v: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        s.push(char::from(d));
    }
}

/// XML text: `&`, `<`, `>` and quotes escaped.
fn push_esc(s: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            // What XML 1.0 does not allow, so the saved file always parses.
            '\u{0}'..='\u{8}'
            | '\u{b}'
            | '\u{c}'
            | '\u{e}'..='\u{1f}'
            | '\u{fffe}'
            | '\u{ffff}' => s.push('\u{fffd}'),
            _ => s.push(c),
        }
    }
}
