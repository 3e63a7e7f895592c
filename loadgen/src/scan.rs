//! Reading the head of a server message without parsing the rest of it.
//!
//! A load generator that plays as fast as the server answers spends much of its CPU reading frames, and most of
//! a `state` push is its `view`, which loadgen never looks at. serde still has to scan every byte of a field it
//! ignores (and to check it), so this module reads the top-level object itself: it walks the members, keeps the
//! text of the few it needs, skips the others with a byte scanner that only tracks strings and brackets, and
//! stops as soon as it has everything a `state` push can tell it. The server writes `view` and `events` last
//! (docs/protocol.md), so against it the view is never scanned at all; against a server that orders members
//! otherwise the result is the same, only slower.
//!
//! It checks the structure it walks (a top-level object, quoted keys, balanced brackets, closed strings) but not
//! the grammar of values it skips: that is the server's job, and a skipped value is never used.

/// The members of a server message that loadgen reads, as borrowed JSON text.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Head<'a> {
    /// `type`'s string value, as written (without its quotes).
    pub kind: &'a str,
    pub re: Option<&'a str>,
    pub version: Option<&'a str>,
    pub code: Option<&'a str>,
    pub status: Option<&'a str>,
    pub legal_actions: Option<&'a str>,
}

impl<'a> Head<'a> {
    /// Reads the head of `text`, a JSON object.
    pub fn scan(text: &'a str) -> Result<Head<'a>, String> {
        let mut s = Scanner::new(text);
        let mut head = Head::default();
        let mut kind = None;
        s.expect(b'{')?;
        if s.peek_past_space() == Some(b'}') {
            return Err("a message without `type`".into());
        }
        loop {
            let key = s.string()?;
            s.expect(b':')?;
            let start = s.skip_space();
            s.skip_value()?;
            let value = &text[start..s.pos];
            match key {
                "type" => kind = Some(unquote(value).ok_or("`type` is not a plain string")?),
                "re" => head.re = Some(value),
                "version" => head.version = Some(value),
                "code" => head.code = Some(value),
                "status" => head.status = Some(value),
                "legal_actions" => head.legal_actions = Some(value),
                _ => {}
            }
            // Everything a state push says that loadgen reads: the view and events after it are not scanned.
            if kind.is_some()
                && head.version.is_some()
                && head.status.is_some()
                && head.legal_actions.is_some()
            {
                break;
            }
            match s.next_token()? {
                b',' => continue,
                b'}' => break,
                other => return Err(format!("expected `,` or `}}`, found `{}`", other as char)),
            }
        }
        head.kind = kind.ok_or("a message without `type`")?;
        Ok(head)
    }

    /// The request id this replies to, if any (`re` absent or null: none).
    pub fn re(&self) -> Option<u64> {
        self.re.and_then(|r| r.parse().ok())
    }

    pub fn version(&self) -> Option<u64> {
        self.version.and_then(|v| v.parse().ok())
    }

    /// An error's code (a string without escapes, as every code is).
    pub fn code(&self) -> Option<&'a str> {
        self.code.and_then(unquote)
    }
}

/// The byte ranges of the elements of `array`, a JSON array's text (ranges within `array`).
pub fn array_elements(array: &str) -> Result<Vec<std::ops::Range<usize>>, String> {
    let mut s = Scanner::new(array);
    let mut out = Vec::new();
    s.expect(b'[')?;
    if s.peek_past_space() == Some(b']') {
        s.pos += 1;
    } else {
        loop {
            let start = s.skip_space();
            s.skip_value()?;
            out.push(start..s.pos);
            match s.next_token()? {
                b',' => continue,
                b']' => break,
                other => return Err(format!("expected `,` or `]`, found `{}`", other as char)),
            }
        }
    }
    if s.peek_past_space().is_some() {
        return Err("trailing characters after an array".into());
    }
    Ok(out)
}

/// A string value's contents when it is a plain string (quoted, no escapes).
fn unquote(value: &str) -> Option<&str> {
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['\\', '"'])).then_some(inner)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Scanner {
            bytes: text.as_bytes(),
            text,
            pos: 0,
        }
    }

    /// Moves past white space; returns the position reached.
    fn skip_space(&mut self) -> usize {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        self.pos
    }

    fn peek_past_space(&mut self) -> Option<u8> {
        self.skip_space();
        self.bytes.get(self.pos).copied()
    }

    /// The next byte that is not white space, consumed.
    fn next_token(&mut self) -> Result<u8, String> {
        let b = self.peek_past_space().ok_or("unexpected end of message")?;
        self.pos += 1;
        Ok(b)
    }

    fn expect(&mut self, want: u8) -> Result<(), String> {
        match self.next_token()? {
            b if b == want => Ok(()),
            b => Err(format!("expected `{}`, found `{}`", want as char, b as char)),
        }
    }

    /// A key: a string without escapes (every key of the protocol is one); its contents.
    fn string(&mut self) -> Result<&'a str, String> {
        self.expect(b'"')?;
        let start = self.pos;
        let len = self.bytes[start..]
            .iter()
            .position(|&b| b == b'"' || b == b'\\')
            .ok_or("unterminated string")?;
        if self.bytes[start + len] == b'\\' {
            return Err("a key with an escape".into());
        }
        self.pos = start + len + 1;
        Ok(&self.text[start..start + len])
    }

    /// Moves past a string whose opening quote is at `pos`.
    fn skip_string(&mut self) -> Result<(), String> {
        let mut i = self.pos + 1;
        loop {
            match self.bytes.get(i) {
                Some(b'"') => break,
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
                None => return Err("unterminated string".into()),
            }
        }
        self.pos = i + 1;
        Ok(())
    }

    /// Moves past one value starting at `pos` (after white space): a string, an object or array with whatever
    /// it holds, or a scalar (everything up to the next `,`, `}`, `]` or white space).
    fn skip_value(&mut self) -> Result<(), String> {
        match self.bytes.get(self.pos) {
            None => Err("unexpected end of message".into()),
            Some(b'"') => self.skip_string(),
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                loop {
                    match self.bytes.get(self.pos) {
                        None => return Err("unbalanced brackets".into()),
                        Some(b'"') => {
                            self.skip_string()?;
                            continue;
                        }
                        Some(b'{' | b'[') => depth += 1,
                        Some(b'}' | b']') => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                return Ok(());
                            }
                        }
                        Some(_) => {}
                    }
                    self.pos += 1;
                }
            }
            Some(b',' | b'}' | b']' | b':') => Err("a member without a value".into()),
            Some(_) => {
                while let Some(b) = self.bytes.get(self.pos) {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                        break;
                    }
                    self.pos += 1;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_push_head_is_read_and_the_view_after_it_is_not() {
        let text = r#"{"type":"state","code":"ABCDEF","version":12,"status":{"kind":"turn","seat":0},
            "legal_actions":[{"type":"move","to":[1,2]}, "pass" ,{"type":"say","text":"a \"}]\" b"}],"view":{"#;
        // The view is cut off: it is not read, so it need not even be complete.
        let head = Head::scan(text).unwrap();
        assert_eq!((head.kind, head.re(), head.version()), ("state", None, Some(12)));
        assert_eq!(head.status, Some(r#"{"kind":"turn","seat":0}"#));
        let legal = head.legal_actions.unwrap();
        let actions: Vec<&str> = array_elements(legal)
            .unwrap()
            .into_iter()
            .map(|r| &legal[r])
            .collect();
        assert_eq!(
            actions,
            [
                r#"{"type":"move","to":[1,2]}"#,
                r#""pass""#,
                r#"{"type":"say","text":"a \"}]\" b"}"#
            ]
        );
    }

    #[test]
    fn members_in_any_order_and_white_space_are_read_the_same() {
        let text = r#" { "view" : {"a":[1,{"b":"}"}]}, "events":[], "legal_actions" : [ ] ,
            "status":{"kind":"over"}, "version" : 3 , "type" : "state" } "#;
        let head = Head::scan(text).unwrap();
        assert_eq!((head.kind, head.version()), ("state", Some(3)));
        assert_eq!(array_elements(head.legal_actions.unwrap()).unwrap(), vec![]);
    }

    #[test]
    fn replies_and_errors_are_read_whole() {
        let refused =
            r#"{"code":"stale_version","message":"the state is at version 4","re":9,"type":"error"}"#;
        let head = Head::scan(refused).unwrap();
        assert_eq!(
            (head.kind, head.re(), head.code()),
            ("error", Some(9), Some("stale_version"))
        );
        let accepted = Head::scan(r#"{"type":"accepted","re":4,"version":7}"#).unwrap();
        assert_eq!(
            (accepted.kind, accepted.re(), accepted.version()),
            ("accepted", Some(4), Some(7))
        );
        let no_id = Head::scan(r#"{"code":"bad_message","message":"x","re":null,"type":"error"}"#).unwrap();
        assert_eq!(no_id.re(), None);
    }

    #[test]
    fn broken_messages_are_errors() {
        for bad in [
            "",
            "[]",
            "{}",
            r#"{"type":"state""#,
            r#"{"type":"state","view":{"a":1}"#,
            r#"{"type":"state","view":"unterminated}"#,
            r#"{"type":"state" "version":1}"#,
            r#"{"type":,"version":1}"#,
            r#"{"version":1}"#,
            r#"{"type":"a\"b"}"#,
        ] {
            assert!(Head::scan(bad).is_err(), "{bad:?} was read");
        }
        for bad in ["[1,", "[1 2]", "[1],", "{}", "[\"a]"] {
            assert!(array_elements(bad).is_err(), "{bad:?} was read");
        }
    }
}
