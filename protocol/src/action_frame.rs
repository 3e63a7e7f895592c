//! The `action` request read by hand: most frames a server reads are actions, and reading one through serde
//! (a derived struct, an untagged request id, then the action read again to check it) was ~5,400 instructions
//! per action, 7 % of the server's (docs/performance.md, section 15).
//!
//! The reader only knows a plain subset of JSON: strings without escapes, integers of at most 18 digits,
//! `true`, `false`, `null`, arrays and objects nested at most [`MAX_DEPTH`] deep. Any frame outside it, or not
//! an action, or with a repeated member, is left to serde ([`scan`] returns `None`), so the subset only decides
//! which path reads a frame, never what a frame means: every text in it is JSON that serde reads, and the fields
//! are taken as serde takes them. The tests compare both paths on generated frames.

use crate::RequestId;

/// Nesting of arrays and objects accepted inside the frame (serde_json's limit is 128 for the whole frame).
const MAX_DEPTH: usize = 64;

/// An `action` request: its id, the action's text exactly as it arrived, and the version it was chosen on.
#[derive(Debug, PartialEq)]
pub(crate) struct ActionFrame<'a> {
    pub id: Option<RequestId>,
    pub action: &'a str,
    pub version: Option<u64>,
}

/// Reads `text` as an `action` request of the plain subset, or says `None` (not an action, not in the subset,
/// a member given twice, not JSON at all): then serde reads it.
pub(crate) fn scan(text: &str) -> Option<ActionFrame<'_>> {
    let mut s = Scanner {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    s.space();
    s.byte(b'{')?;
    s.space();
    let mut kind = false;
    let mut id = None;
    let mut action = None;
    let mut version = None;
    loop {
        let key = s.string()?;
        s.space();
        s.byte(b':')?;
        s.space();
        match key {
            "type" if !kind => {
                if s.string()? != "action" {
                    return None;
                }
                kind = true;
            }
            "id" if id.is_none() => id = Some(s.request_id()?),
            "version" if version.is_none() => version = Some(s.optional_u64()?),
            "action" if action.is_none() => {
                let start = s.at;
                s.value(1)?;
                action = Some(&text[start..s.at]);
            }
            "type" | "id" | "version" | "action" => return None,
            // Other members are ignored, as serde ignores them; their values must still be in the subset.
            _ => s.value(1)?,
        }
        s.space();
        match s.next()? {
            b',' => s.space(),
            b'}' => break,
            _ => return None,
        }
    }
    s.space();
    if s.at != s.bytes.len() || !kind {
        return None;
    }
    Some(ActionFrame {
        id: id.flatten(),
        action: action?,
        version: version.flatten(),
    })
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    fn byte(&mut self, expected: u8) -> Option<()> {
        (self.next()? == expected).then_some(())
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// A string without escapes or control characters; its text between the quotes.
    fn string(&mut self) -> Option<&'a str> {
        self.byte(b'"')?;
        let start = self.at;
        loop {
            match self.next()? {
                b'"' => return Some(&self.text[start..self.at - 1]),
                b'\\' | 0..=0x1f => return None,
                _ => {}
            }
        }
    }

    /// `true`, `false` or `null`.
    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// An integer of at most 18 digits (so that it is one for every reader), not followed by a fraction or an
    /// exponent; its digits and whether it is negative.
    fn integer(&mut self) -> Option<(bool, u64)> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let start = self.at;
        let mut n: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            n = n * 10 + u64::from(d - b'0');
            self.at += 1;
            if self.at - start > 18 {
                return None;
            }
        }
        let digits = self.at - start;
        // JSON has no leading zeros ("01"), and a number needs a digit.
        if digits == 0 || (digits > 1 && self.bytes[start] == b'0') {
            return None;
        }
        if matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some((negative, n))
    }

    /// `null` or a non-negative integer.
    fn optional_u64(&mut self) -> Option<Option<u64>> {
        if self.peek() == Some(b'n') {
            self.literal(b"null")?;
            return Some(None);
        }
        match self.integer()? {
            (false, n) => Some(Some(n)),
            (true, _) => None,
        }
    }

    /// A request id: `null`, a non-negative integer or a string.
    fn request_id(&mut self) -> Option<Option<RequestId>> {
        if self.peek() == Some(b'"') {
            return Some(Some(RequestId::Text(self.string()?.to_owned())));
        }
        Some(self.optional_u64()?.map(RequestId::Number))
    }

    /// Any value of the subset, nested `depth` deep.
    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.integer().map(drop),
            b'[' if depth < MAX_DEPTH => {
                self.at += 1;
                self.space();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Some(());
                }
                loop {
                    self.value(depth + 1)?;
                    self.space();
                    match self.next()? {
                        b',' => self.space(),
                        b']' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b'{' if depth < MAX_DEPTH => {
                self.at += 1;
                self.space();
                if self.peek() == Some(b'}') {
                    self.at += 1;
                    return Some(());
                }
                loop {
                    self.string()?;
                    self.space();
                    self.byte(b':')?;
                    self.space();
                    self.value(depth + 1)?;
                    self.space();
                    match self.next()? {
                        b',' => self.space(),
                        b'}' => return Some(()),
                        _ => return None,
                    }
                }
            }
            _ => None,
        }
    }
}
