//! The batch protocol (docs/CONTRACT.md, "Batch protocol") on the Rust binding.
//!
//! Reads JSON lines `{"op": EXPORT, "input": …}` on stdin and writes, for each,
//! exactly one line on stdout: the response as the module wrote it, or
//! `{"error":{"code":…,"message":…}}`. The framing is the one every batch
//! command applies: a line ends at LF only; JSON whitespace (space, tab, CR)
//! around it is dropped and nothing else is whitespace; a line left empty
//! gets no answer; any other line must be one JSON object, of any depth,
//! whose strings may hold any bytes but control characters and any `\u`
//! escape, and whose last `op` and last `input` count. A string `input` is
//! the raw request text; any other `input` is passed to the module as the
//! very bytes the line holds. Nothing else is written to stdout.
//!
//! ```sh
//! echo '{"op":"simple_error","input":{"message":"m"}}' | cargo run --example batch
//! ```
//!
//! `--tiers interpreter` runs every call on the interpreter a first start
//! answers from (`Tiers::Interpreter`; the conformance engine
//! `rust-interpreter`), `--tiers compiled` on Wasmtime's compiled code only;
//! by default a start on an empty cache answers from the interpreter while
//! the module compiles, and the exit waits for that compile.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use toolerr::{Error, ErrorCode, Host, Options, Tiers};

/// The longest line read whole: a request at the module's limit written as a
/// JSON string (each byte escaped at worst doubles), plus room for the op.
const MAX_LINE: usize = 2 * 4_194_304 + (1 << 20);
const NOT_OBJECT: &str = "is not a JSON object {\"op\",\"input\"}";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tiers = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => Tiers::Auto,
        ["--tiers", "auto"] => Tiers::Auto,
        ["--tiers", "compiled"] => Tiers::Compiled,
        ["--tiers", "interpreter"] => Tiers::Interpreter,
        _ => {
            eprintln!("usage: batch [--tiers auto|compiled|interpreter]");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        tiers,
        ..Options::default()
    };
    let host = match Host::with_options(options) {
        Ok(host) => host,
        Err(e) => {
            eprintln!("batch: {e}");
            return ExitCode::FAILURE;
        }
    };
    let stdin = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    match run(&host, stdin, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("batch: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Reads one line without its LF into `line`; false at the end of input. A
/// line over MAX_LINE is read to its end and dropped: `line` is then None.
fn read_line(input: &mut impl BufRead, line: &mut Option<Vec<u8>>) -> io::Result<bool> {
    let mut buf = Vec::new();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (piece, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if !too_long {
            if buf.len() + piece.len() > MAX_LINE {
                too_long = true;
                buf = Vec::new();
            } else {
                buf.extend_from_slice(piece);
            }
        }
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            break;
        }
    }
    *line = if too_long { None } else { Some(buf) };
    Ok(any)
}

fn run(host: &Host, mut input: impl BufRead, out: &mut impl Write) -> io::Result<()> {
    let mut line = None;
    let mut n = 0;
    while read_line(&mut input, &mut line)? {
        n += 1;
        let answer = match &line {
            None => Err(Error::new(
                ErrorCode::RequestTooLarge,
                format!("batch: line {n} is longer than {MAX_LINE} bytes"),
            )),
            Some(bytes) => {
                let text = trim(bytes);
                if text.is_empty() {
                    continue;
                }
                one(host, text, n)
            }
        };
        match answer {
            Ok(response) => {
                out.write_all(response.as_bytes())?;
                out.write_all(b"\n")?;
            }
            Err(e) => {
                let line =
                    serde_json::json!({"error": {"code": e.code.as_str(), "message": e.message}});
                writeln!(out, "{line}")?;
            }
        }
        out.flush()?;
    }
    Ok(())
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Drops the JSON whitespace around a line.
fn trim(mut b: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = b {
        if !is_space(*first) {
            break;
        }
        b = rest;
    }
    while let [rest @ .., last] = b {
        if !is_space(*last) {
            break;
        }
        b = rest;
    }
    b
}

/// Answers one trimmed, non-empty line.
fn one(host: &Host, line: &[u8], n: usize) -> Result<String, Error> {
    let (op, input) = read_object(line).ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidRequest,
            format!("batch: line {n} {NOT_OBJECT}"),
        )
    })?;
    let op = match op {
        Some(op) if op.first() == Some(&b'"') => {
            String::from_utf8_lossy(&decode_string(op)).into_owned()
        }
        _ => String::new(),
    };
    if op.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            format!("batch: line {n}: \"op\" must be a non-empty string"),
        ));
    }
    match input {
        None => host.call_raw(&op, b"{}"),
        Some(raw) if raw.first() == Some(&b'"') => host.call_raw(&op, &decode_string(raw)),
        Some(raw) => host.call_raw(&op, raw),
    }
}

/// Reads one line as a JSON object, of any depth, without reading its
/// strings as text.
struct Scanner<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
        }
    }

    fn str(&mut self) -> bool {
        if self.peek() != Some(b'"') {
            return false;
        }
        self.pos += 1;
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    self.pos += 1;
                    return true;
                }
                0..=0x1f => return false,
                b'\\' => match self.b.get(self.pos + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.pos += 2,
                    Some(b'u') => match self.b.get(self.pos + 2..self.pos + 6) {
                        Some(h) if h.iter().all(u8::is_ascii_hexdigit) => self.pos += 6,
                        _ => return false,
                    },
                    _ => return false,
                },
                _ => self.pos += 1,
            }
        }
        false
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> bool {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return false,
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return false;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return false;
            }
        }
        true
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        if self.b[self.pos..].starts_with(word) {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    fn key(&mut self) -> bool {
        self.space();
        if !self.str() {
            return false;
        }
        self.space();
        if self.peek() != Some(b':') {
            return false;
        }
        self.pos += 1;
        true
    }

    /// Reads one JSON value, iteratively.
    fn value(&mut self) -> bool {
        let mut open: Vec<u8> = Vec::new();
        loop {
            self.space();
            match self.peek() {
                Some(c @ (b'{' | b'[')) => {
                    self.pos += 1;
                    self.space();
                    if self.peek() == Some(if c == b'{' { b'}' } else { b']' }) {
                        self.pos += 1;
                    } else {
                        open.push(c);
                        if c == b'{' && !self.key() {
                            return false;
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    if !self.str() {
                        return false;
                    }
                }
                Some(b't') if self.literal(b"true") => {}
                Some(b'f') if self.literal(b"false") => {}
                Some(b'n') if self.literal(b"null") => {}
                Some(b'-' | b'0'..=b'9') => {
                    if !self.number() {
                        return false;
                    }
                }
                _ => return false,
            }
            loop {
                let Some(&top) = open.last() else {
                    return true;
                };
                self.space();
                match (top, self.peek()) {
                    (_, Some(b',')) => {
                        self.pos += 1;
                        if top == b'{' && !self.key() {
                            return false;
                        }
                        break;
                    }
                    (b'{', Some(b'}')) | (b'[', Some(b']')) => {
                        self.pos += 1;
                        open.pop();
                    }
                    _ => return false,
                }
            }
        }
    }
}

/// The op and the input of a trimmed line, each as written (None when
/// absent); None when the line is not one JSON object.
#[allow(clippy::type_complexity)]
fn read_object(line: &[u8]) -> Option<(Option<&[u8]>, Option<&[u8]>)> {
    let mut s = Scanner { b: line, pos: 0 };
    let (mut op, mut input) = (None, None);
    if s.peek() != Some(b'{') {
        return None;
    }
    s.pos += 1;
    s.space();
    if s.peek() == Some(b'}') {
        s.pos += 1;
    } else {
        loop {
            s.space();
            let start = s.pos;
            if !s.str() {
                return None;
            }
            let key = decode_string(&line[start..s.pos]);
            s.space();
            if s.peek() != Some(b':') {
                return None;
            }
            s.pos += 1;
            s.space();
            let at = s.pos;
            if !s.value() {
                return None;
            }
            match key.as_slice() {
                b"op" => op = Some(&line[at..s.pos]),
                b"input" => input = Some(&line[at..s.pos]),
                _ => {}
            }
            s.space();
            match s.peek() {
                Some(b',') => s.pos += 1,
                Some(b'}') => {
                    s.pos += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    s.space();
    (s.pos == line.len()).then_some((op, input))
}

/// Decodes a JSON string literal (quotes included) the scanner accepted:
/// escapes decoded, a `\u` escape of a lone surrogate as U+FFFD (as the
/// module reads one), every other byte as it is.
fn decode_string(lit: &[u8]) -> Vec<u8> {
    let body = &lit[1..lit.len() - 1];
    let hex4 =
        |h: &[u8]| u32::from_str_radix(std::str::from_utf8(h).unwrap_or("0"), 16).unwrap_or(0);
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = body[i + 1];
        i += 2;
        match e {
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'u' => {
                let mut cp = hex4(&body[i..i + 4]);
                i += 4;
                if (0xd800..0xdc00).contains(&cp)
                    && body[i..].starts_with(b"\\u")
                    && body.len() >= i + 6
                {
                    let low = hex4(&body[i + 2..i + 6]);
                    if (0xdc00..0xe000).contains(&low) {
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                        i += 6;
                    }
                }
                let ch = char::from_u32(cp).unwrap_or('\u{fffd}');
                let mut utf8 = [0; 4];
                out.extend_from_slice(ch.encode_utf8(&mut utf8).as_bytes());
            }
            other => out.push(other), // " \ /
        }
    }
    out
}
