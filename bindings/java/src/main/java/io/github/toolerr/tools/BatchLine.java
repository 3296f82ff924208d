package io.github.toolerr.tools;

import io.github.toolerr.ToolerrException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * BatchLine reads one line of the batch protocol with the framing every batch command applies
 * (docs/CONTRACT.md, "Batch protocol"): JSON whitespace (space, tab, CR, LF) around a line is
 * dropped and nothing else is whitespace; any other line must be one JSON object, of any depth,
 * whose strings may hold any bytes but control characters and any {@code \\u} escape (the module
 * reads those); of its members {@code op} and {@code input} count, the last of each when repeated.
 * The line is read as bytes, never decoded as text, so that the request reaches the module as the
 * line holds it.
 */
final class BatchLine {
  static final String NOT_OBJECT = "is not a JSON object {\"op\",\"input\"}";

  /** The export a line names and the request to send it. */
  record Request(String op, byte[] input) {}

  private final byte[] b;
  private final int end;
  private int pos;

  private BatchLine(byte[] b, int start, int end) {
    this.b = b;
    this.pos = start;
    this.end = end;
  }

  private static final class NotObject extends Exception {
    NotObject() {
      super(null, null, false, false);
    }
  }

  private static boolean isSpace(byte c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  }

  /** blank reports whether b[start, end) is only JSON whitespace. */
  static boolean blank(byte[] b, int start, int end) {
    for (int i = start; i < end; i++) {
      if (!isSpace(b[i])) return false;
    }
    return true;
  }

  /**
   * read returns what line number n of b[start, end), not blank, asks; an INVALID_REQUEST
   * ToolerrException for a line that is not a JSON object with a non-empty string op.
   */
  static Request read(byte[] b, int start, int end, int n) {
    while (start < end && isSpace(b[start])) start++;
    while (end > start && isSpace(b[end - 1])) end--;
    BatchLine s = new BatchLine(b, start, end);
    byte[] op = null;
    byte[] input = "{}".getBytes(StandardCharsets.UTF_8);
    try {
      s.expect('{');
      s.space();
      if (s.peek() == '}') {
        s.pos++;
      } else {
        while (true) {
          s.space();
          int keyStart = s.pos;
          s.string();
          byte[] key = decodeString(b, keyStart, s.pos);
          s.space();
          s.expect(':');
          s.space();
          int valueStart = s.pos;
          s.value();
          if (Arrays.equals(key, OP)) {
            op = Arrays.copyOfRange(b, valueStart, s.pos);
          } else if (Arrays.equals(key, INPUT)) {
            input = b[valueStart] == '"' ? decodeString(b, valueStart, s.pos) : Arrays.copyOfRange(b, valueStart, s.pos);
          }
          s.space();
          if (s.peek() == ',') {
            s.pos++;
            continue;
          }
          s.expect('}');
          break;
        }
      }
      s.space();
      if (s.pos != end) throw new NotObject();
    } catch (NotObject e) {
      throw new ToolerrException(ToolerrException.INVALID_REQUEST, "batch: line " + n + " " + NOT_OBJECT);
    }
    String name = op != null && op[0] == '"' ? new String(decodeString(op, 0, op.length), StandardCharsets.UTF_8) : "";
    if (name.isEmpty()) {
      throw new ToolerrException(ToolerrException.INVALID_REQUEST, "batch: line " + n + ": \"op\" must be a non-empty string");
    }
    return new Request(name, input);
  }

  private static final byte[] OP = {'o', 'p'};
  private static final byte[] INPUT = {'i', 'n', 'p', 'u', 't'};

  private int peek() {
    return pos < end ? b[pos] & 0xff : -1;
  }

  private void space() {
    while (pos < end && isSpace(b[pos])) pos++;
  }

  private void expect(char c) throws NotObject {
    if (peek() != c) throw new NotObject();
    pos++;
  }

  private void literal(String word) throws NotObject {
    for (int i = 0; i < word.length(); i++) expect(word.charAt(i));
  }

  /** string reads a string from its opening quote, without decoding it. */
  private void string() throws NotObject {
    expect('"');
    while (pos < end) {
      int c = b[pos] & 0xff;
      if (c == '"') {
        pos++;
        return;
      }
      if (c < 0x20) throw new NotObject();
      if (c != '\\') {
        pos++;
        continue;
      }
      if (pos + 1 >= end) throw new NotObject();
      switch (b[pos + 1]) {
        case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> pos += 2;
        case 'u' -> {
          if (pos + 6 > end) throw new NotObject();
          for (int i = pos + 2; i < pos + 6; i++) {
            if (hex(b[i]) < 0) throw new NotObject();
          }
          pos += 6;
        }
        default -> throw new NotObject();
      }
    }
    throw new NotObject();
  }

  /** number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. */
  private void number() throws NotObject {
    if (peek() == '-') pos++;
    int c = peek();
    if (c == '0') {
      pos++;
    } else if (c >= '1' && c <= '9') {
      digits();
    } else {
      throw new NotObject();
    }
    if (peek() == '.') {
      pos++;
      if (digits() == 0) throw new NotObject();
    }
    if (peek() == 'e' || peek() == 'E') {
      pos++;
      if (peek() == '+' || peek() == '-') pos++;
      if (digits() == 0) throw new NotObject();
    }
  }

  private int digits() {
    int n = 0;
    while (pos < end && b[pos] >= '0' && b[pos] <= '9') {
      pos++;
      n++;
    }
    return n;
  }

  /** key reads a member's key and its colon. */
  private void key() throws NotObject {
    space();
    string();
    space();
    expect(':');
  }

  /** value reads one JSON value of any depth, iteratively. */
  private void value() throws NotObject {
    byte[] open = new byte[16]; // the containers around the value being read
    int depth = 0;
    while (true) {
      space();
      int c = peek();
      boolean opened = false;
      switch (c) {
        case '{', '[' -> {
          pos++;
          space();
          if (peek() == (c == '{' ? '}' : ']')) {
            pos++;
          } else {
            if (depth == open.length) open = Arrays.copyOf(open, depth * 2);
            open[depth++] = (byte) c;
            if (c == '{') key();
            opened = true;
          }
        }
        case '"' -> string();
        case 't' -> literal("true");
        case 'f' -> literal("false");
        case 'n' -> literal("null");
        default -> {
          if (c == '-' || (c >= '0' && c <= '9')) {
            number();
          } else {
            throw new NotObject();
          }
        }
      }
      if (opened) continue;
      // A value ended: close what it ends, or go on to the next one.
      while (true) {
        if (depth == 0) return;
        space();
        byte top = open[depth - 1];
        int d = peek();
        if (d == ',') {
          pos++;
          if (top == '{') key();
          break;
        }
        if ((top == '{' && d == '}') || (top == '[' && d == ']')) {
          pos++;
          depth--;
          continue;
        }
        throw new NotObject();
      }
    }
  }

  private static int hex(byte c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  private static int hex4(byte[] b, int at) {
    int r = 0;
    for (int i = at; i < at + 4; i++) r = r << 4 | hex(b[i]);
    return r;
  }

  /**
   * decodeString decodes a string literal (quotes included) the scanner accepted: escapes
   * decoded, a {@code \\u} escape of a lone surrogate as U+FFFD (as the module reads one), every
   * other byte as it is.
   */
  static byte[] decodeString(byte[] b, int start, int end) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(end - start);
    int last = end - 1;
    for (int i = start + 1; i < last; i++) {
      byte c = b[i];
      if (c != '\\') {
        out.write(c);
        continue;
      }
      i++;
      switch (b[i]) {
        case 'b' -> out.write('\b');
        case 'f' -> out.write('\f');
        case 'n' -> out.write('\n');
        case 'r' -> out.write('\r');
        case 't' -> out.write('\t');
        case 'u' -> {
          int r = hex4(b, i + 1);
          i += 4;
          if (r >= 0xd800 && r < 0xdc00 && i + 6 < last && b[i + 1] == '\\' && b[i + 2] == 'u') {
            int lo = hex4(b, i + 3);
            if (lo >= 0xdc00 && lo < 0xe000) {
              r = 0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00);
              i += 6;
            }
          }
          if (r >= 0xd800 && r < 0xe000) r = 0xfffd;
          out.writeBytes(new String(Character.toChars(r)).getBytes(StandardCharsets.UTF_8));
        }
        default -> out.write(b[i]); // " \ /
      }
    }
    return out.toByteArray();
  }
}
