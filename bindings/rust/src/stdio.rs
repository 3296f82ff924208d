//! `toolerr::stdio()`: rmcp's stdio transport with the module's stdio gate
//! (abi/ABI.md, "The stdio gate") in front of it.
//!
//! Every line the client sends goes to the gate before rmcp reads it: a line
//! the gate passes or rewrites reaches rmcp; a line it answers gets the
//! gate's JSON-RPC response on stdout and never reaches rmcp; a line it
//! ignores is noted on stderr. So no line silences the session (rmcp drops a
//! message serde_json refuses: a lone surrogate, `1e400`, nesting over 128
//! levels, bytes that are not UTF-8), and arguments too large, too deep, out
//! of range, not valid Unicode or not an object reach the model as the
//! `<validation_error>` every toolerr host writes.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream, ReadBuf,
};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::abi::{self, GateVerdict};
use crate::host::{Host, host};

/// The client's stdin behind the gate: what rmcp reads (the first half of
/// the transport [`stdio`] returns).
pub struct GatedStdin {
    gated: DuplexStream,
    start: Arc<Start>,
}

/// The client's stdout, which rmcp and the gate share: every line is
/// written whole, never interleaved (the second half of the transport).
pub struct GatedStdout {
    partial: Vec<u8>,
    lines: UnboundedSender<Vec<u8>>,
    start: Arc<Start>,
}

/// What the two tasks of a transport need, taken by the first poll: the
/// tasks are spawned on the runtime that polls the transport, so building
/// it needs none.
type Tasks = Box<dyn FnOnce() + Send>;
struct Start(Mutex<Option<Tasks>>);

impl Start {
    fn run(&self) {
        let tasks = self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(tasks) = tasks {
            tasks();
        }
    }
}

/// rmcp's stdio transport (`rmcp::transport::stdio()`) with the stdio gate
/// in front of it, on the process-wide [`host()`]:
///
/// ```no_run
/// # use rmcp::ServiceExt;
/// # async fn run(server: impl rmcp::ServerHandler) -> Result<(), Box<dyn std::error::Error>> {
/// let service = server.serve(toolerr::stdio()).await?; // instead of rmcp's stdio()
/// service.waiting().await?;
/// # Ok(())
/// # }
/// ```
///
/// # Notes
/// - It must be polled inside a Tokio runtime (rmcp's `serve` does), which
///   runs its two tasks: one reads and gates the client's lines (each gate
///   call on the blocking pool), one writes the lines rmcp and the gate send.
/// - A line is read with bounded memory: of a line over the request limit
///   only its first [`Host::GATE_HEAD_BYTES`] bytes are kept.
/// - A line the module cannot judge (it failed to load, it trapped) is
///   ignored with a note on stderr.
pub fn stdio() -> (GatedStdin, GatedStdout) {
    gated(None, tokio::io::stdin(), tokio::io::stdout())
}

impl Host {
    /// [`stdio`] on this host instead of the process-wide one.
    pub fn stdio(&'static self) -> (GatedStdin, GatedStdout) {
        gated(Some(self), tokio::io::stdin(), tokio::io::stdout())
    }

    /// The gated transport over any reader (what the client writes) and
    /// writer (what it reads), on this host.
    pub fn gated<R, W>(&'static self, input: R, output: W) -> (GatedStdin, GatedStdout)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        gated(Some(self), input, output)
    }
}

fn gated<R, W>(given: Option<&'static Host>, input: R, output: W) -> (GatedStdin, GatedStdout)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (gated, to_rmcp) = tokio::io::duplex(1 << 16);
    let (lines, pending) = unbounded_channel();
    let answers = lines.clone();
    let start = Arc::new(Start(Mutex::new(Some(Box::new(move || {
        tokio::spawn(write_lines(pending, output));
        tokio::spawn(read_lines(given, input, to_rmcp, answers));
    })))));
    (
        GatedStdin {
            gated,
            start: start.clone(),
        },
        GatedStdout {
            partial: Vec::new(),
            lines,
            start,
        },
    )
}

/// Writes each line it receives whole, then flushes.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut pending: UnboundedReceiver<Vec<u8>>,
    mut output: W,
) {
    while let Some(line) = pending.recv().await {
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            break;
        }
    }
}

/// Reads the client's lines, gates each, and hands on what the gate lets
/// through; answers go to the writer.
async fn read_lines<R: AsyncRead + Unpin>(
    given: Option<&'static Host>,
    input: R,
    mut to_rmcp: DuplexStream,
    answers: UnboundedSender<Vec<u8>>,
) {
    let mut input = BufReader::with_capacity(64 << 10, input);
    let mut head = Vec::new();
    loop {
        let limit = match given.map_or_else(host, Ok) {
            Ok(h) => h.description().limits.max_request_bytes as usize,
            Err(_) => abi::MAX_REQUEST_BYTES, // the gate reports the failure
        };
        let Ok(Some(total)) = read_line(&mut input, &mut head, limit).await else {
            break;
        };
        let line = std::mem::take(&mut head);
        let judged = tokio::task::spawn_blocking(move || {
            let verdict = given
                .map_or_else(host, Ok)
                .and_then(|h| h.gate_head(total, &line));
            (line, verdict)
        })
        .await;
        let Ok((mut line, verdict)) = judged else {
            eprintln!(
                "toolerr: ignored a line of {total} bytes from the client: the gate panicked"
            );
            continue;
        };
        let handed = match verdict {
            Ok(GateVerdict::Pass) => {
                line.push(b'\n');
                line
            }
            Ok(GateVerdict::Rewrite { line: rewritten }) => {
                let mut out = rewritten.into_bytes();
                out.push(b'\n');
                out
            }
            Ok(GateVerdict::Answer { response }) => {
                let mut out = response.into_bytes();
                out.push(b'\n');
                let _ = answers.send(out);
                continue;
            }
            Ok(GateVerdict::Ignore { reason }) => {
                eprintln!("toolerr: ignored a line of {total} bytes from the client: {reason}");
                continue;
            }
            Err(e) => {
                eprintln!(
                    "toolerr: ignored a line of {total} bytes from the client: the gate failed: {e}"
                );
                continue;
            }
        };
        if to_rmcp.write_all(&handed).await.is_err() {
            break;
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Reads one line into `head` (cleared first) without its line feed,
/// keeping at most `limit + 1` bytes, or [`Host::GATE_HEAD_BYTES`] of a line
/// over `limit`; returns its length, or None at the end of the input.
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    head: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Option<usize>> {
    head.clear();
    let mut total = 0;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            return Ok((total > 0).then(|| finish(head, total, limit)));
        }
        let (part, used, ended) = match chunk.iter().position(|&c| c == b'\n') {
            Some(nl) => (&chunk[..nl], nl + 1, true),
            None => (chunk, chunk.len(), false),
        };
        total += part.len();
        let room = (limit + 1).saturating_sub(head.len());
        head.extend_from_slice(&part[..part.len().min(room)]);
        input.consume(used);
        if ended {
            return Ok(Some(finish(head, total, limit)));
        }
    }
}

fn finish(head: &mut Vec<u8>, total: usize, limit: usize) -> usize {
    if total > limit {
        head.truncate(Host::GATE_HEAD_BYTES);
    }
    total
}

impl AsyncRead for GatedStdin {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.start.run();
        Pin::new(&mut self.gated).poll_read(cx, buf)
    }
}

impl AsyncWrite for GatedStdout {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.start.run();
        let this = &mut *self;
        this.partial.extend_from_slice(buf);
        if let Some(last) = this.partial.iter().rposition(|&c| c == b'\n') {
            let rest = this.partial.split_off(last + 1);
            let whole = std::mem::replace(&mut this.partial, rest);
            if this.lines.send(whole).is_err() {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "toolerr: the client's stdout is closed",
                )));
            }
        }
        Poll::Ready(Ok(buf.len()))
    }

    // Whole lines are already with the writer task, which flushes each.
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let rest = std::mem::take(&mut self.partial);
        if !rest.is_empty() {
            let _ = self.lines.send(rest);
        }
        Poll::Ready(Ok(()))
    }
}
