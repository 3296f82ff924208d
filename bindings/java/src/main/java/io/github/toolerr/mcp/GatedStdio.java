package io.github.toolerr.mcp;

import io.github.toolerr.Options;
import io.github.toolerr.Toolerr;
import io.github.toolerr.abi.CallToolResult;
import io.github.toolerr.abi.GateResponse;
import io.github.toolerr.internal.Json;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * GatedStdio is the SDK's stdio transport with the module's stdio gate in front of it (abi/ABI.md,
 * "The stdio gate"):
 *
 * <pre>{@code
 * McpServer.sync(Heal.stdio(mapper))   // instead of new StdioServerTransportProvider(mapper)
 * }</pre>
 *
 * <p>Every line the client sends goes to the gate before the SDK reads it: a line the gate passes
 * or rewrites reaches the SDK, a line it answers gets the gate's JSON-RPC response on stdout (and
 * never reaches the SDK), a line it ignores is noted on the {@code io.github.toolerr} logger. The
 * SDK's stdio transport ends the session at the first line it cannot read; behind the gate no line
 * does, and arguments too large, too deep, out of range, not valid Unicode or not an object reach
 * the model as the {@code <validation_error>} every toolerr host writes.
 *
 * <h2>Notes</h2>
 *
 * <ul>
 *   <li>The SDK and the gate share stdout: the SDK writes each message while holding the stream's
 *       monitor, and so does the gate, so lines never interleave.
 *   <li>A line reaches the SDK as ASCII: the characters beyond it become JSON {@code \\u} escapes
 *       (they can only stand inside strings of a line the gate passed), so that the SDK, which
 *       reads with the platform's default charset, reads them right whatever the locale. A raw CR,
 *       which a line the gate passed holds only as whitespace, becomes a space: the SDK would end a
 *       line there.
 *   <li>Memory is bounded: of a line over the request limit only its first {@link
 *       Toolerr#GATE_HEAD_BYTES} bytes are kept, and its length counted to its end.
 * </ul>
 */
public final class GatedStdio {
  private GatedStdio() {}

  private static final System.Logger LOG = System.getLogger("io.github.toolerr");

  /** provider is the SDK's stdio transport on the process's stdin and stdout, behind host's gate. */
  public static StdioServerTransportProvider provider(Toolerr host, McpJsonMapper mapper) {
    return provider(host, mapper, System.in, System.out);
  }

  /**
   * provider is the SDK's stdio transport on in and out, behind host's gate; the SDK's answer to a
   * call of a tool it does not have becomes UNKNOWN_ACTION (see {@link Heal.UnknownTool}).
   */
  public static StdioServerTransportProvider provider(Toolerr host, McpJsonMapper mapper, InputStream in, OutputStream out) {
    return provider(host, mapper, in, out, Heal.UnknownTool.ENVELOPE);
  }

  /** provider is the SDK's stdio transport on in and out, behind host's gate; unknownTool says how an unknown tool is answered. */
  public static StdioServerTransportProvider provider(
      Toolerr host, McpJsonMapper mapper, InputStream in, OutputStream out, Heal.UnknownTool unknownTool) {
    OutputStream sdkOut = unknownTool == Heal.UnknownTool.SDK ? out : new UnknownTools(host, out);
    return new StdioServerTransportProvider(mapper, new GatedInput(host, in, sdkOut), sdkOut);
  }

  /** The SDK's answer to a tools/call of a tool it does not have (mcp-core 2.x, McpAsyncServer). */
  static final String SDK_UNKNOWN_TOOL = "Unknown tool: invalid_tool_name";

  /** What the SDK puts before the tool's name in that answer's data. */
  static final String SDK_TOOL_NOT_FOUND = "Tool not found: ";

  /**
   * UnknownTools is stdout as the SDK and the gate write it: each line goes through whole, but the
   * SDK's JSON-RPC error for a tool it does not have (-32602 {@value #SDK_UNKNOWN_TOOL}) becomes a
   * result, the module's UNKNOWN_ACTION listing the tools healed on the host. Writers hold its
   * monitor for a whole message (the SDK does, and so does the gate), so lines never mix.
   */
  static final class UnknownTools extends OutputStream {
    private static final byte[] MARK = SDK_UNKNOWN_TOOL.getBytes(StandardCharsets.US_ASCII);
    private final Toolerr host;
    private final OutputStream out;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(1024);

    UnknownTools(Toolerr host, OutputStream out) {
      this.host = host;
      this.out = out;
    }

    @Override
    public synchronized void write(int b) throws IOException {
      line.write(b);
      if (b == '\n') emit();
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
      int start = off;
      for (int i = off; i < off + len; i++) {
        if (b[i] == '\n') {
          line.write(b, start, i + 1 - start);
          emit();
          start = i + 1;
        }
      }
      line.write(b, start, off + len - start);
    }

    @Override
    public synchronized void flush() throws IOException {
      out.flush();
    }

    @Override
    public synchronized void close() throws IOException {
      if (line.size() > 0) {
        line.writeTo(out);
        line.reset();
      }
      out.close();
    }

    /** emit writes the line held, ending in its line feed, or its replacement. */
    private void emit() throws IOException {
      byte[] bytes = line.toByteArray();
      line.reset();
      byte[] replaced = indexOf(bytes, MARK) >= 0 ? replace(bytes) : null;
      out.write(replaced != null ? replaced : bytes);
    }

    /** replace is the UNKNOWN_ACTION result for the SDK's unknown-tool error, or null when the line is not one. */
    private byte[] replace(byte[] bytes) {
      try {
        if (!(Json.parse(new String(bytes, StandardCharsets.UTF_8).trim()) instanceof Map<?, ?> message)
            || !(message.get("error") instanceof Map<?, ?> error)
            || !(error.get("code") instanceof Number code)
            || code.intValue() != -32602
            || !SDK_UNKNOWN_TOOL.equals(error.get("message"))
            || !(error.get("data") instanceof String data)
            || !data.startsWith(SDK_TOOL_NOT_FOUND)
            || !message.containsKey("id")) {
          return null;
        }
        String tool = data.substring(SDK_TOOL_NOT_FOUND.length());
        CallToolResult result = host.unknownTool(tool, Heal.healedTools(host));
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("jsonrpc", "2.0");
        response.put("id", message.get("id"));
        response.put("result", result);
        return (Json.write(response) + "\n").getBytes(StandardCharsets.UTF_8);
      } catch (RuntimeException e) { // not the SDK's message after all, or the module failed: keep the SDK's
        LOG.log(System.Logger.Level.WARNING, "toolerr: kept the SDK's answer to an unknown tool: {0}", e.getMessage());
        return null;
      }
    }

    private static int indexOf(byte[] hay, byte[] needle) {
      outer:
      for (int i = 0; i + needle.length <= hay.length; i++) {
        for (int j = 0; j < needle.length; j++) {
          if (hay[i + j] != needle[j]) continue outer;
        }
        return i;
      }
      return -1;
    }
  }

  /** GatedInput is the client's stdin as the SDK reads it: the lines the gate hands on. */
  static final class GatedInput extends InputStream {
    private final Toolerr host;
    private final InputStream in;
    private final OutputStream out;
    private byte[] pending = new byte[0];
    private int pos;
    private boolean ended;

    GatedInput(Toolerr host, InputStream in, OutputStream out) {
      this.host = host;
      this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 1 << 16);
      this.out = out;
    }

    @Override
    public int read() throws IOException {
      if (!fill()) return -1;
      return pending[pos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) return 0;
      if (!fill()) return -1;
      int n = Math.min(len, pending.length - pos);
      System.arraycopy(pending, pos, b, off, n);
      pos += n;
      return n;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }

    /** fill makes sure a line the gate handed on is pending; false at the end of the input. */
    private boolean fill() throws IOException {
      while (pos >= pending.length) {
        if (ended) return false;
        Line line = readLine();
        if (line == null) {
          ended = true;
          return false;
        }
        GateResponse verdict;
        try {
          verdict = line.size > Options.MAX_REQUEST_BYTES ? host.gate(line.size, line.head) : host.gate(line.head);
        } catch (RuntimeException e) { // the module failed: the line cannot be judged
          LOG.log(System.Logger.Level.WARNING, "toolerr: ignored a line of {0} bytes from the client: the gate failed: {1}", line.size, e.getMessage());
          continue;
        }
        switch (verdict.verdict()) {
          case "pass" -> hand(line.head);
          case "rewrite" -> hand(verdict.line().getBytes(StandardCharsets.UTF_8));
          case "answer" -> answer(verdict.response());
          default -> LOG.log(System.Logger.Level.WARNING, "toolerr: ignored a line of {0} bytes from the client: {1}", line.size, verdict.reason());
        }
      }
      return true;
    }

    /** hand makes line, with its line feed, what the SDK reads next (see the class notes). */
    private void hand(byte[] line) {
      ByteArrayOutputStream b = new ByteArrayOutputStream(line.length + 16);
      String text = new String(line, StandardCharsets.UTF_8);
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '\r') {
          b.write(' ');
        } else if (c < 0x80) {
          b.write(c);
        } else {
          b.writeBytes(String.format("\\u%04x", (int) c).getBytes(StandardCharsets.US_ASCII));
        }
      }
      b.write('\n');
      pending = b.toByteArray();
      pos = 0;
    }

    /** answer writes the gate's response to the client, as one whole line. */
    private void answer(String response) throws IOException {
      byte[] line = (response + "\n").getBytes(StandardCharsets.UTF_8);
      synchronized (out) {
        out.write(line);
        out.flush();
      }
    }

    /** A line read: its bytes (its head, for a line over the request limit) and its size. */
    private record Line(byte[] head, long size) {}

    /** readLine reads the next line without its line feed; null at the end of the input. */
    private Line readLine() throws IOException {
      int keep = Options.MAX_REQUEST_BYTES + 1;
      byte[] head = new byte[256];
      int n = 0;
      long size = 0;
      int c;
      while ((c = in.read()) >= 0 && c != '\n') {
        size++;
        if (n < keep) {
          if (n == head.length) head = Arrays.copyOf(head, Math.min(keep, n * 2));
          head[n++] = (byte) c;
        }
      }
      if (c < 0 && size == 0) return null;
      byte[] bytes = Arrays.copyOf(head, size > Options.MAX_REQUEST_BYTES ? Toolerr.GATE_HEAD_BYTES : n);
      return new Line(bytes, size);
    }
  }
}
