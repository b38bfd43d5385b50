//! Share links: a trace in the URL fragment as `#t=` + base64url(raw DEFLATE(compact JSON)). Decoding is for
//! untrusted input: every stage has a limit and every refusal says which stage failed and why.

use crate::trace::{self, Trace, TraceError, MAX_TRACE_BYTES};

/// The fragment key: `#t=…`.
pub const FRAGMENT_KEY: &str = "t=";
/// A link longer than this is refused before decoding (a 1 MiB trace compresses far below it).
pub const MAX_ENCODED_CHARS: usize = 2 * 1024 * 1024;

/// The fragment (without `#`) that carries `trace`, packed by [`crate::deflate`] (natively and in the page alike:
/// synchronous, so the page has the link inside the click that copies it).
pub fn encode(trace: &Trace) -> Result<String, String> {
    Ok(encode_packed(&crate::deflate::compress(
        trace.to_json()?.as_bytes(),
    )))
}

/// The fragment for a trace already packed with raw DEFLATE.
pub fn encode_packed(packed: &[u8]) -> String {
    format!("{FRAGMENT_KEY}{}", base64url_encode(packed))
}

/// Decodes a fragment (with or without the leading `#`) back into a validated trace.
pub fn decode(fragment: &str) -> Result<Trace, TraceError> {
    let err = |m: String| TraceError(format!("the link: {m}"));
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let Some(payload) = fragment.strip_prefix(FRAGMENT_KEY) else {
        return Err(err(format!(
            "expected the fragment to start with #{FRAGMENT_KEY}, got #{}",
            fragment.chars().take(12).collect::<String>()
        )));
    };
    if payload.is_empty() {
        return Err(err("the trace after #t= is empty".into()));
    }
    if payload.len() > MAX_ENCODED_CHARS {
        return Err(err(format!(
            "{} characters is longer than the {MAX_ENCODED_CHARS} a link may carry",
            payload.len()
        )));
    }
    let packed = base64url_decode(payload).map_err(err)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_TRACE_BYTES)
        .map_err(|e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => err(format!(
                "the trace unpacks to more than {MAX_TRACE_BYTES} bytes (1 MiB)"
            )),
            _ => err("the data is not a packed trace (it may be truncated or altered)".into()),
        })?;
    let text =
        String::from_utf8(json).map_err(|_| err("the unpacked trace is not UTF-8 text".into()))?;
    trace::parse(&text).map_err(|e| err(e.0))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// RFC 4648 §5 base64url without padding.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
        }
    }
    out
}

/// Decodes base64url (padding tolerated), naming the first bad character.
pub fn base64url_decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for (i, c) in text.chars().enumerate() {
        let v = match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '-' | '+' => 62,
            '_' | '/' => 63,
            _ => {
                let shown = if c.is_control() || c.is_whitespace() {
                    format!("U+{:04X}", c as u32)
                } else {
                    format!("'{c}'")
                };
                return Err(format!(
                    "character {shown} at position {} is not base64url",
                    i + 1
                ));
            }
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("the text ends in the middle of a byte (truncated?)".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_every_length() {
        for n in 0..40u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(base64url_decode(&base64url_encode(&bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn a_share_link_round_trips_every_experiment() {
        for e in crate::experiments::ALL {
            let t = trace::parse(e.text).unwrap();
            let back = decode(&format!("#{}", encode(&t).unwrap())).unwrap();
            assert_eq!(back.steps, t.steps, "{}", e.file);
        }
    }

    #[test]
    fn a_zip_bomb_is_refused_by_size() {
        let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b' '; 4 * 1024 * 1024], 9);
        let err = decode(&format!("t={}", base64url_encode(&bomb)))
            .unwrap_err()
            .0;
        assert!(err.contains("more than 1048576 bytes"), "{err}");
    }
}
