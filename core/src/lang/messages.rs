//! The core's refusals in Chinese. A refusal is a location and a reason joined by `: ` (`the link: step 3
//! (apply): field `flow` must be …`); each part is read against the templates below, whose `{0}`, `{1}`…
//! capture the words between their fixed parts, and a capture is translated again (it may be a JSON type or
//! a range). Identifiers, field names and values stay as they are. Text no template matches stays English; a
//! native test feeds the refusals the tests provoke through it.

/// Where a refusal happened: the parts before its reason, each followed by `: `.
const LOCATIONS: &[(&str, &str)] = &[
    ("the link", "链接"),
    ("field `rule`", "字段 `rule`"),
    ("rule", "规则"),
    ("apply {0}", "apply {0}"),
    ("step {0} ({1})", "第 {0} 步（{1}）"),
    ("step {0}", "第 {0} 步"),
    ("field `{0}`", "字段 `{0}`"),
    ("the trace is not valid JSON", "trace 不是合法的 JSON"),
    ("the databases failed", "数据库出错"),
    ("event refused at the transport", "传输层拒收了事件"),
    ("flow {0}", "流程 {0}"),
    ("no_loss", "no_loss（不丢失）"),
    ("the challenge link", "挑战链接"),
    ("level `{0}`", "关卡 `{0}`"),
    ("not valid JSON", "不是合法的 JSON"),
];

/// English template, Chinese template. Tried in order: the more specific first.
const TEMPLATES: &[(&str, &str)] = &[
    ("the trace is {0} bytes; at most {1} (1 MiB) are allowed", "trace 有 {0} 字节；最多允许 {1} 字节（1 MiB）"),
    ("it is larger than {0} bytes (1 MiB)", "它超过了 {0} 字节（1 MiB）"),
    ("a trace must be a JSON object, got {0}", "trace 必须是 JSON 对象，实际是{0}"),
    ("unknown field {0} at the top of the trace (expected format, consumer, steps)", "trace 顶层有未知字段 {0}（应为 format、consumer、steps）"),
    ("the trace has {0} steps; at most {1} are allowed", "trace 有 {0} 步；最多允许 {1} 步"),
    ("missing field `{0}` ({1})", "缺少字段 `{0}`（{1}）"),
    ("missing field `{0}`", "缺少字段 `{0}`"),
    ("a list of steps", "步骤列表"),
    ("unknown field `{0}`, expected `ordering`, `support_v2`, `rule` or `effect`", "未知字段 `{0}`，应为 `ordering`、`support_v2`、`rule` 或 `effect`"),
    ("unknown variant `{0}`, expected one of {1}", "未知取值 `{0}`，应为以下之一：{1}"),
    ("unknown field `{0}`, expected {1}", "未知字段 `{0}`，应为 {1}"),
    // The levels' refusals (a progress file, a challenge link): before the general `field` shapes.
    ("{0} bytes is too large for a progress file", "{0} 字节，对进度文件来说太大了"),
    ("field `bet` must be `hold`, `break`, `break:<property>` or `skip`, got {0}", "字段 `bet` 必须是 `hold`、`break`、`break:<property>` 或 `skip`，实际是 {0}"),
    ("field `best` must be a count of moves, got {0}", "字段 `best` 必须是步数，实际是 {0}"),
    ("field `{0}` must be true or false, got {1}", "字段 `{0}` 必须是 true 或 false，实际是{1}"),
    ("field `{0}` must be {1}-{2} lower-case letters, digits and hyphens, got {3}", "字段 `{0}` 必须是 {1}-{2} 个小写字母、数字或连字符，实际是 {3}"),
    ("field `{0}` must be 1–40 lower-case letters, digits and hyphens, got {1}", "字段 `{0}` 必须是 1–40 个小写字母、数字或连字符，实际是 {1}"),
    ("unknown field `{0}`", "未知字段 `{0}`"),
    ("expected #level=…", "应以 #level=… 开头"),
    ("the level after #level= is empty", "#level= 之后的关卡是空的"),
    ("{0} characters is too long for a level", "{0} 个字符，对一个关卡来说太长了"),
    ("the data is not a packed level (it may be truncated or altered)", "数据不是打包的关卡（可能被截断或改动过）"),
    ("the level is not UTF-8 text", "关卡不是 UTF-8 文本"),
    ("the file could not be read as text", "这个文件无法作为文本读取"),
    ("field `{0}` must be one of {1}, got {2}", "字段 `{0}` 必须是以下之一：{1}，实际是{2}"),
    ("field `{0}` must be {1}, got {2}", "字段 `{0}` 必须是{1}，实际是{2}"),
    ("field `format` must be {0}", "字段 `format` 必须是 {0}"),
    ("field `{0}` may hold only {1}, found {2}", "字段 `{0}` 只能包含 {1}，却出现了 {2}"),
    ("field `{0}` may have at most {1} keys, got {2}", "字段 `{0}` 最多只能有 {1} 个键，实际有 {2} 个"),
    ("field `{0}` key {1} must be 1–{2} characters", "字段 `{0}` 的键 {1} 必须是 1–{2} 个字符"),
    ("field `{0}` value of {1} must be an integer, bool, null or short string, got the number {2}", "字段 `{0}` 中 {1} 的值必须是整数、布尔值、null 或短字符串，实际是数字 {2}"),
    ("field `{0}` value of {1} is a string longer than {2} characters", "字段 `{0}` 中 {1} 的值是超过 {2} 个字符的字符串"),
    ("field `{0}` value of {1} must be a scalar (integer, bool, null or string), got {2}", "字段 `{0}` 中 {1} 的值必须是标量（整数、布尔值、null 或字符串），实际是{2}"),
    ("must be an object, got {0}", "必须是对象，实际是{0}"),
    ("must be {0}, got {1}", "必须是{0}，实际是{1}"),
    ("an event must be a JSON object, got {0}", "事件必须是 JSON 对象，实际是{0}"),
    ("unknown field {0} (an event has exactly event_id, flow_id, seq, kind, schema, payload)", "未知字段 {0}（事件只有 event_id、flow_id、seq、kind、schema、payload）"),
    ("there is no experiment {0}", "没有第 {0} 个实验"),
    ("{0} committed, never delivered", "{0} 已提交，却从未送达"),
    ("{0} delivered {1} times", "{0} 送达了 {1} 次"),
    ("stream {0}: {1} delivered after {2}", "流 {0}：{1} 在 {2} 之后才送达"),
    ("expected the fragment to start with #{0}, got #{1}", "片段应以 #{0} 开头，实际是 #{1}"),
    ("the trace after #t= is empty", "#t= 之后的 trace 是空的"),
    ("{0} characters is longer than the {1} a link may carry", "{0} 个字符，超过了链接最多能携带的 {1} 个"),
    ("the trace unpacks to more than {0} bytes (1 MiB)", "trace 解包后超过 {0} 字节（1 MiB）"),
    ("the data is not a packed trace (it may be truncated or altered)", "数据不是打包的 trace（可能被截断或改动过）"),
    ("the unpacked trace is not UTF-8 text", "解包后的 trace 不是 UTF-8 文本"),
    ("character {0} at position {1} is not base64url", "位置 {1} 的字符 {0} 不是 base64url"),
    ("the text ends in the middle of a byte (truncated?)", "文本在一个字节中间结束（被截断了？）"),
    ("{0} must be a whole number from {1} to {2}, got `{3}`", "{0} 必须是 {1} 到 {2} 之间的整数，实际是 `{3}`"),
    ("{0} must be from {1} to {2}, got {3}", "{0} 必须在 {1} 到 {2} 之间，实际是 {3}"),
    ("consumer must be one of {0}, got `{1}`", "consumer 必须是以下之一：{0}，实际是 `{1}`"),
    ("producer must be atomic or unsafe_dual_write, got `{0}`", "producer 必须是 atomic 或 unsafe_dual_write，实际是 `{0}`"),
    ("schema2 names `{0}`, which is not an event of {1} flow(s) × {2} event(s) ({3})", "schema2 指定的 `{0}` 不是 {1} 个流程 × 每个 {2} 个事件中的事件（{3}）"),
    ("the state change was committed alone; the process exited before writing the outbox", "状态更新单独提交了；进程在写 outbox 之前退出"),
    ("an integer from {0} to {1}", "{0} 到 {1} 之间的整数"),
    ("1–{0} characters", "1–{0} 个字符"),
    ("a bool", "布尔值"),
    ("an integer", "整数"),
    ("a fractional number", "小数"),
    ("a string", "字符串"),
    ("a number", "数字"),
    ("text", "文本"),
    ("an array", "数组"),
    ("an object", "对象"),
    ("a list", "列表"),
    ("a JSON object", "JSON 对象"),
    ("{0} at line {1} column {2}", "{0}（第 {1} 行第 {2} 列）"),
    ("EOF while parsing a value", "解析值时文本已结束"),
    ("EOF while parsing a list", "解析列表时文本已结束"),
    ("EOF while parsing an object", "解析对象时文本已结束"),
    ("EOF while parsing a string", "解析字符串时文本已结束"),
    ("expected value", "这里应有一个值"),
    ("expected ident", "这里应有一个标识符"),
    ("trailing characters", "末尾有多余的字符"),
    ("trailing comma", "末尾有多余的逗号"),
    ("expected `,` or `]`", "这里应为 `,` 或 `]`"),
    ("expected `,` or `}`", "这里应为 `,` 或 `}`"),
    ("expected `:`", "这里应为 `:`"),
    ("key must be a string", "键必须是字符串"),
    ("invalid number", "数字无效"),
    ("number out of range", "数字超出范围"),
    ("invalid escape", "转义无效"),
    ("invalid unicode code point", "Unicode 码点无效"),
    ("control character (\\u0000-\\u001F) found while parsing a string", "字符串里有控制字符"),
    ("recursion limit exceeded", "嵌套层数太多"),
    // The consumer's invariant and no_loss, as the badge lists them (`protocol::invariant`).
    ("effect #{0} is seq {1} ({2}), but the contiguous prefix needs seq {3} there", "第 {0} 条执行记录是 seq {1}（{2}），但连续前缀在这里需要 seq {3}"),
    ("effect #{0} is {1} after {2}, not a legal step", "第 {0} 条执行记录在 {2} 之后是 {1}，不是合法的下一步"),
    ("effect #{0} ({1}) records held={2}", "第 {0} 条执行记录（{1}）记下 held={2}"),
    ("effect for {0} exists but its inbox row is {1}", "{0} 有执行记录，但它的 inbox 行是 {1}"),
    ("effect for {0} is {1}, but the event says otherwise", "{0} 的执行记录是 {1}，但事件本身不是"),
    ("effect for {0} matches no accepted event at seq {1}", "{0} 的执行记录对不上 seq {1} 上任何已收件的事件"),
    ("projection {0}/last_seq={1}/held={2} disagrees with the last effect {3} (seq {4}, held {5})", "projection {0}/last_seq={1}/held={2} 与最后一条执行记录 {3}（seq {4}，held {5}）不一致"),
    ("last_seq={0} but 1 effect was written", "last_seq={0}，但只写了 1 条执行记录"),
    ("last_seq={0} but {1} effects were written", "last_seq={0}，但写了 {1} 条执行记录"),
    ("held={0} in state {1}", "状态 {1} 下 held={0}"),
    ("projection at last_seq={0} but no effect was written", "projection 在 last_seq={0}，却没有任何执行记录"),
    ("effects were written but there is no projection row", "写了执行记录，却没有 projection 行"),
    ("inbox row {0} is marked applied but left no effect", "inbox 行 {0} 标为 applied，却没有留下执行记录"),
    ("event {0} has more than one effect", "事件 {0} 有不止一条执行记录"),
    ("flow {0} committed seq {1} but the outbox holds {2} of its events", "流程 {0} 已提交 seq {1}，但 outbox 只有它的 {2} 个事件"),
    ("{0} is marked accepted but the inbox does not hold it", "{0} 已标为 accepted，但 inbox 里没有它"),
    // The rule's note in the SQL panel (`-- the rule answered …`; a crash's and a restart's are the panel's own).
    ("the rule answered ({0})", "规则回答了（{0}）"),
    // The reader's rule (RULE.md): refused before it runs, or its answer at run time.
    ("{0} (line {1}, column {2})", "{0}（第 {1} 行第 {2} 列）"),
    ("the rule is {0} bytes; at most {1} are allowed", "规则有 {0} 字节；最多允许 {1} 字节"),
    ("the rule is empty: write one SELECT over waiting", "规则是空的：请写一条基于 waiting 的 SELECT"),
    ("the rule nests parentheses deeper than {0}", "规则的括号嵌套超过了 {0} 层"),
    ("the number {0} is written in hex, which the page's SQLite cannot read", "数字 {0} 是十六进制写法，页面里的 SQLite 读不了"),
    ("the number {0} is not an integer: a rule has integers only (the page's SQLite has no floating point)", "数字 {0} 不是整数：规则里只能有整数（页面里的 SQLite 没有浮点数）"),
    ("the number {0} is not a 64-bit integer", "数字 {0} 不是 64 位整数"),
    ("the rule uses a blob literal (x'…'), which the page's SQLite cannot read", "规则用了 blob 字面量（x'…'），页面里的 SQLite 读不了"),
    ("the rule uses {0}, which the page's SQLite cannot run", "规则用了 {0}，页面里的 SQLite 不能执行"),
    ("the rule must be one SELECT (or WITH … SELECT), not {0}", "规则必须是一条 SELECT（或 WITH … SELECT），而不是 {0}"),
    ("the rule must be exactly one statement", "规则必须恰好是一条语句"),
    ("the rule must only read: it may not write", "规则只能读：不能写"),
    ("the rule must only read: it may not write, attach, or change a setting", "规则只能读：不能写、不能 ATTACH、不能改设置"),
    ("the rule's result must be two columns, an event_id and an action; it has {0}", "规则的结果必须是两列：一个 event_id 和一个动作；它有 {0} 列"),
    ("the rule reads {0}: a rule reads only waiting", "规则读了 {0}：规则只能读 waiting"),
    ("the rule reads waiting.{0}, which is not a column of waiting", "规则读了 waiting.{0}，这不是 waiting 的列"),
    ("the rule calls {0}(), which a rule may not call (a rule's answer must be fixed by waiting's rows)", "规则调用了 {0}()，规则不能调用它（规则的回答必须只由 waiting 的行决定）"),
    ("near {0}: syntax error", "{0} 附近有语法错误"),
    ("incomplete input", "输入不完整"),
    ("no such table: {0}", "没有这张表：{0}"),
    ("no such column: {0}", "没有这一列：{0}"),
    ("no such function: {0}", "没有这个函数：{0}"),
    ("consumer rule needs a rule (its SELECT)", "consumer 为 rule 时需要一条规则（它的 SELECT）"),
    ("a rule is given, but the consumer is {0}, not rule", "给了规则，但 consumer 是 {0}，不是 rule"),
    ("effect must be one of {0}, got `{1}`", "effect 必须是以下之一：{0}，实际是 `{1}`"),
    ("effect belongs to a rule: give the rule first", "effect 属于规则：请先给出规则"),
    ("missing field `rule` (the rule's SELECT, for the ordering `rule`)", "缺少字段 `rule`（ordering 为 `rule` 时规则的 SELECT）"),
    ("field `{0}` belongs only to the ordering `rule`, not `{1}`", "字段 `{0}` 只属于 ordering `rule`，不属于 `{1}`"),
    ("your rule answered the event_id {0}, which is not a waiting row", "你的规则回答的 event_id 是 {0}，它不是 waiting 里的行"),
    ("your rule answered the action {0}; an action is 'apply', 'block' or 'skip'", "你的规则回答的动作是 {0}；动作只能是 'apply'、'block' 或 'skip'"),
    ("your rule was stopped after {0} million steps of SQLite without an answer", "你的规则在 SQLite 执行了 {0} 百万步后仍没有回答，已被停止"),
    ("your rule failed: {0}", "你的规则出错了：{0}"),
    ("string or blob too big", "字符串或 blob 太大"),
    ("a compound SELECT ({0})", "复合 SELECT（{0}）"),
    ("the rule uses a parameter: a rule reads only waiting", "规则用了参数：规则只能读 waiting"),
    ("the JSON operator ->", "JSON 运算符 ->"),
    ("the rule has more than {0} tokens", "规则超过了 {0} 个记号"),
    ("a recursive WITH", "递归 WITH"),
    ("VALUES (write a SELECT)", "VALUES（请改用 SELECT）"),
];

/// A refusal (`location: location: reason`) in Chinese, each part by the first template it matches, with a
/// space between Chinese and the Latin letters or digits beside it.
pub fn zh(message: &str) -> String {
    let text = translate(message);
    let mut out = String::with_capacity(text.len() + 8);
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if let Some(p) = prev {
            if (han(p) && latin(c)) || (latin(p) && han(c)) {
                out.push(' ');
            }
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

/// A Chinese character (not punctuation: `，` and `：` take no space).
fn han(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

fn latin(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '`' | '"' | '\'' | '#' | '-')
}

fn translate(message: &str) -> String {
    if let Some((head, rest)) = message.split_once(": ") {
        // A location's holes are the reader's values (a step number, an op, a field name): kept as written.
        if let Some(head) = template(LOCATIONS, head, false) {
            return format!("{head}：{}", translate(rest));
        }
    }
    part(message)
}

/// `text` by the first template that matches it whole (its holes translated the same way), else as it is.
fn part(text: &str) -> String {
    template(TEMPLATES, text, true).unwrap_or_else(|| text.to_owned())
}

/// The first of `templates` that matches `text` whole, its holes filled in one pass (a capture that itself
/// reads `{1}` stays as it is), translated when `deep`.
fn template(templates: &[(&str, &str)], text: &str, deep: bool) -> Option<String> {
    templates.iter().find_map(|(en, chinese)| {
        let caps = captures(en, text)?;
        let mut out = String::with_capacity(chinese.len() + text.len());
        let mut rest = *chinese;
        while let Some(open) = rest.find('{') {
            let hole = rest[open + 1..].find('}').and_then(|close| {
                Some((
                    rest[open + 1..open + 1 + close].parse::<usize>().ok()?,
                    close,
                ))
            });
            match hole.and_then(|(i, close)| Some((caps.get(i)?, close))) {
                Some((cap, close)) => {
                    out.push_str(&rest[..open]);
                    out.push_str(&if deep { part(cap) } else { (*cap).to_owned() });
                    rest = &rest[open + close + 2..];
                }
                None => {
                    out.push_str(&rest[..=open]);
                    rest = &rest[open + 1..];
                }
            }
        }
        out.push_str(rest);
        Some(out)
    })
}

/// A template's fixed parts, between its holes `{0}`, `{1}`… (a brace not around a number is text).
fn fixed_parts(pattern: &str) -> Vec<&str> {
    let bytes = pattern.as_bytes();
    let (mut parts, mut start, mut i) = (Vec::new(), 0, 0);
    while i < bytes.len() {
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if bytes[i] == b'{' && digits > 0 && bytes.get(i + 1 + digits) == Some(&b'}') {
            parts.push(&pattern[start..i]);
            i += digits + 2;
            start = i;
        } else {
            i += 1;
        }
    }
    parts.push(&pattern[start..]);
    parts
}

/// What the holes of `pattern` stand for in `text`: its fixed parts must be there in order, from the first
/// character to the last; a hole takes the shortest text before the next fixed part (the last, all up to the
/// final one). No hole is empty.
fn captures<'a>(pattern: &str, text: &'a str) -> Option<Vec<&'a str>> {
    let parts = fixed_parts(pattern);
    let holes = parts.len() - 1;
    let mut rest = text.strip_prefix(parts[0])?;
    let mut caps = Vec::with_capacity(holes);
    for (i, part) in parts.iter().enumerate().skip(1) {
        let at = if i == holes {
            rest.strip_suffix(part)?.len()
        } else if part.is_empty() {
            return None;
        } else {
            rest.find(part)?
        };
        if at == 0 {
            return None;
        }
        caps.push(&rest[..at]);
        rest = &rest[at + part.len()..];
    }
    rest.is_empty().then_some(caps)
}
