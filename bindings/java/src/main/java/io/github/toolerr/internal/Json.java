package io.github.toolerr.internal;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Json is the binding's JSON codec: requests out, responses in. It holds no contract logic (the
 * module does all of that); it only moves values across.
 *
 * <h2>Notes</h2>
 *
 * <ul>
 *   <li>Objects decode to {@link LinkedHashMap}, so member order is the order of the text; arrays
 *       to {@link ArrayList}; numbers to {@link Long} when written as an integer that fits, else
 *       {@link Double}.
 *   <li>A record encodes as an object of its components in declaration order, null components left
 *       out (the ABI's optional fields); {@link #decode} builds a record back from an object.
 *   <li>A {@link Raw} value is written as the JSON text it holds, unchecked.
 * </ul>
 */
public final class Json {
  private Json() {}

  /** Raw is JSON text to be written as it is. */
  public record Raw(String text) {}

  /** Failure is a JSON text that does not parse, or a value that cannot be written. */
  public static final class Failure extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Failure(String message) {
      super(message);
    }
  }

  // ---- writing

  /** write returns the JSON text of value. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, "");
    return out.toString();
  }

  private static void write(StringBuilder out, Object v, String path) {
    if (v == null) {
      out.append("null");
    } else if (v instanceof String s) {
      string(out, s);
    } else if (v instanceof Boolean b) {
      out.append(b.booleanValue());
    } else if (v instanceof Raw r) {
      out.append(r.text());
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (!Double.isFinite(d)) {
        throw new Failure((path.isEmpty() ? "a number" : "\"" + path + "\"") + " is " + d + ", which JSON cannot hold");
      }
      if (d == Math.rint(d) && Math.abs(d) < 1e15) {
        out.append((long) d);
        if (d == 0 && 1 / d < 0) {
          out.setLength(out.length() - 1);
          out.append("-0");
        }
      } else {
        out.append(d);
      }
    } else if (v instanceof BigDecimal bd) {
      out.append(bd.toString());
    } else if (v instanceof Number n) { // Integer, Long, Short, Byte, BigInteger, atomics
      out.append(n instanceof BigInteger ? n.toString() : Long.toString(n.longValue()));
    } else if (v instanceof Map<?, ?> m) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) out.append(',');
        first = false;
        String key = String.valueOf(e.getKey());
        string(out, key);
        out.append(':');
        write(out, e.getValue(), join(path, key));
      }
      out.append('}');
    } else if (v instanceof Iterable<?> it) {
      out.append('[');
      int i = 0;
      for (Object item : it) {
        if (i > 0) out.append(',');
        write(out, item, join(path, Integer.toString(i)));
        i++;
      }
      out.append(']');
    } else if (v.getClass().isArray()) {
      out.append('[');
      int n = Array.getLength(v);
      for (int i = 0; i < n; i++) {
        if (i > 0) out.append(',');
        write(out, Array.get(v, i), join(path, Integer.toString(i)));
      }
      out.append(']');
    } else if (v instanceof Record r) {
      out.append('{');
      boolean first = true;
      for (RecordComponent c : COMPONENTS.get(r.getClass())) {
        Object value;
        try {
          value = c.getAccessor().invoke(r);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
        if (value == null) continue;
        if (!first) out.append(',');
        first = false;
        string(out, c.getName());
        out.append(':');
        write(out, value, join(path, c.getName()));
      }
      out.append('}');
    } else if (v instanceof Enum<?> e) {
      string(out, e.toString());
    } else if (v instanceof Character c) {
      string(out, c.toString());
    } else {
      throw new Failure(
          (path.isEmpty() ? "a value" : "\"" + path + "\"")
              + " of type "
              + v.getClass().getName()
              + " has no JSON form (use maps, lists, strings, numbers, booleans, records or Json.Raw)");
    }
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** string appends s as a JSON string: only {@code "}, {@code \} and control characters escaped. */
  static void string(StringBuilder out, String s) {
    out.append('"');
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      out.append(s, start, i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> out.append(String.format("\\u%04x", (int) c));
      }
      start = i + 1;
    }
    out.append(s, start, s.length()).append('"');
  }

  /**
   * compact removes the whitespace outside strings of a JSON text, keeping everything else (escapes,
   * number spellings, key order) as written: the request text every engine sends for a vector or a
   * benchmark.
   */
  public static String compact(String text) {
    StringBuilder out = new StringBuilder(text.length());
    boolean inString = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (inString) {
        out.append(c);
        if (c == '\\' && i + 1 < text.length()) out.append(text.charAt(++i));
        else if (c == '"') inString = false;
      } else if (c == '"') {
        inString = true;
        out.append(c);
      } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
        out.append(c);
      }
    }
    return out.toString();
  }

  // ---- reading

  /** parse reads one JSON value (and nothing after it but whitespace). */
  public static Object parse(String text) {
    Parser p = new Parser(text);
    Object v = p.value(0);
    p.skip();
    if (p.i != text.length()) throw p.fail("unexpected text after the value");
    return v;
  }

  /**
   * members reads a JSON object and returns each member's raw text, in order (a repeated key
   * keeps its last value): the vector tests and the bench read requests exactly as written.
   */
  public static Map<String, String> members(String text) {
    Parser p = new Parser(text);
    p.skip();
    if (p.peek() != '{') throw p.fail("not a JSON object");
    p.i++;
    Map<String, String> out = new LinkedHashMap<>();
    p.items(
        '}',
        () -> {
          String key = p.key();
          out.remove(key); // in the place of its last value
          out.put(key, p.raw());
        });
    p.skip();
    if (p.i != text.length()) throw p.fail("unexpected text after the object");
    return out;
  }

  /** elements reads a JSON array and returns each element's raw text, in order. */
  public static List<String> elements(String text) {
    Parser p = new Parser(text);
    p.skip();
    p.expect('[');
    List<String> out = new ArrayList<>();
    p.items(']', () -> out.add(p.raw()));
    return out;
  }

  private static final int MAX_DEPTH = 1024;

  private static final class Parser {
    final String s;
    int i;

    Parser(String s) {
      this.s = s;
    }

    Failure fail(String why) {
      return new Failure("invalid JSON at offset " + i + ": " + why);
    }

    char peek() {
      return i < s.length() ? s.charAt(i) : '\0';
    }

    char next() {
      if (i >= s.length()) throw fail("unexpected end");
      return s.charAt(i++);
    }

    void expect(char c) {
      if (next() != c) {
        i--;
        throw fail("expected " + c);
      }
    }

    void skip() {
      while (i < s.length()) {
        char c = s.charAt(i);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
        i++;
      }
    }

    Object value(int depth) {
      if (depth > MAX_DEPTH) throw fail("nested too deep");
      skip();
      char c = peek();
      switch (c) {
        case '{' -> {
          i++;
          Map<String, Object> m = new LinkedHashMap<>();
          items('}', () -> m.put(key(), value(depth + 1)));
          return m;
        }
        case '[' -> {
          i++;
          List<Object> l = new ArrayList<>();
          items(']', () -> l.add(value(depth + 1)));
          return l;
        }
        case '"' -> {
          return string();
        }
        case 't' -> {
          word("true");
          return Boolean.TRUE;
        }
        case 'f' -> {
          word("false");
          return Boolean.FALSE;
        }
        case 'n' -> {
          word("null");
          return null;
        }
        default -> {
          return number();
        }
      }
    }

    /**
     * items reads the rest of an object or an array whose opening bracket was just read, through
     * its closing bracket close: item reads one member or element, items the commas between them.
     */
    void items(char close, Runnable item) {
      skip();
      if (peek() == close) {
        i++;
        return;
      }
      while (true) {
        item.run();
        skip();
        char d = next();
        if (d == close) return;
        if (d != ',') {
          i--;
          throw fail("expected , or " + close);
        }
      }
    }

    /** key reads a member's key and its colon. */
    String key() {
      skip();
      String key = string();
      skip();
      expect(':');
      return key;
    }

    /** raw reads one value and returns its text as written. */
    String raw() {
      skip();
      int start = i;
      value(1);
      return s.substring(start, i);
    }

    void word(String w) {
      if (!s.startsWith(w, i)) throw fail("expected " + w);
      i += w.length();
    }

    Object number() {
      int start = i;
      boolean integral = true;
      if (peek() == '-') i++;
      int digits = i;
      while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
      if (i == digits) throw fail("expected a value");
      if (peek() == '.') {
        integral = false;
        i++;
        int frac = i;
        while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
        if (i == frac) throw fail("expected digits");
      }
      if (peek() == 'e' || peek() == 'E') {
        integral = false;
        i++;
        if (peek() == '+' || peek() == '-') i++;
        int exp = i;
        while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
        if (i == exp) throw fail("expected digits");
      }
      String text = s.substring(start, i);
      if (integral && text.length() < 19) return Long.parseLong(text);
      return Double.parseDouble(text);
    }

    String string() {
      if (peek() != '"') throw fail("expected a string");
      i++;
      StringBuilder b = null;
      int start = i;
      while (true) {
        if (i >= s.length()) throw fail("unterminated string");
        char c = s.charAt(i);
        if (c == '"') {
          String out = b == null ? s.substring(start, i) : b.append(s, start, i).toString();
          i++;
          return out;
        }
        if (c < 0x20) throw fail("control character in a string");
        if (c != '\\') {
          i++;
          continue;
        }
        if (b == null) b = new StringBuilder();
        b.append(s, start, i);
        i++;
        char e = next();
        switch (e) {
          case '"', '\\', '/' -> b.append(e);
          case 'n' -> b.append('\n');
          case 'r' -> b.append('\r');
          case 't' -> b.append('\t');
          case 'b' -> b.append('\b');
          case 'f' -> b.append('\f');
          case 'u' -> {
            if (i + 4 > s.length()) throw fail("short \\u escape");
            try {
              b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            } catch (NumberFormatException x) {
              throw fail("bad \\u escape");
            }
            i += 4;
          }
          default -> {
            i--;
            throw fail("bad escape");
          }
        }
        start = i;
      }
    }
  }

  // ---- records

  private static final Map<Class<?>, Constructor<?>> CONSTRUCTORS = new ConcurrentHashMap<>();

  /** decode converts a parsed JSON value to type: a record, a list, a map or a plain value. */
  @SuppressWarnings("unchecked")
  public static <T> T decode(Object value, Class<T> type) {
    return (T) decode(value, (Type) type, "");
  }

  private static Object decode(Object v, Type type, String path) {
    if (type instanceof ParameterizedType pt) {
      Class<?> raw = (Class<?>) pt.getRawType();
      Type[] args = pt.getActualTypeArguments();
      if (v == null) return null;
      if (List.class.isAssignableFrom(raw)) {
        if (!(v instanceof List<?> l)) throw mismatch(path, "an array", v);
        List<Object> out = new ArrayList<>(l.size());
        for (int i = 0; i < l.size(); i++) out.add(decode(l.get(i), args[0], join(path, Integer.toString(i))));
        return out;
      }
      if (Map.class.isAssignableFrom(raw)) {
        if (!(v instanceof Map<?, ?> m)) throw mismatch(path, "an object", v);
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
          out.put((String) e.getKey(), decode(e.getValue(), args[1], join(path, (String) e.getKey())));
        }
        return out;
      }
      return v;
    }
    Class<?> c = (Class<?>) type;
    if (c == Object.class) return v;
    if (c == boolean.class) return v != null && (Boolean) v;
    if (c == int.class) return v == null ? 0 : ((Number) v).intValue();
    if (c == long.class) return v == null ? 0L : ((Number) v).longValue();
    if (c == double.class) return v == null ? 0.0 : ((Number) v).doubleValue();
    if (v == null) return null;
    if (c == String.class) {
      if (!(v instanceof String)) throw mismatch(path, "a string", v);
      return v;
    }
    if (c == Boolean.class) {
      if (!(v instanceof Boolean)) throw mismatch(path, "a boolean", v);
      return v;
    }
    if (c == Double.class) {
      if (!(v instanceof Number n)) throw mismatch(path, "a number", v);
      return n.doubleValue();
    }
    if (c == Integer.class) {
      if (!(v instanceof Number n)) throw mismatch(path, "a number", v);
      return n.intValue();
    }
    if (c == Long.class) {
      if (!(v instanceof Number n)) throw mismatch(path, "a number", v);
      return n.longValue();
    }
    if (c.isRecord()) {
      if (!(v instanceof Map<?, ?> m)) throw mismatch(path, "an object", v);
      RecordComponent[] comps = COMPONENTS.get(c);
      Object[] values = new Object[comps.length];
      for (int i = 0; i < comps.length; i++) {
        values[i] = decode(m.get(comps[i].getName()), comps[i].getGenericType(), join(path, comps[i].getName()));
      }
      try {
        return constructor(c, comps).newInstance(values);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("toolerr: cannot build " + c.getName(), e);
      }
    }
    if (c.isInstance(v)) return v;
    throw mismatch(path, c.getSimpleName(), v);
  }

  /**
   * COMPONENTS keeps each record class's components: Class.getRecordComponents builds them anew
   * (by reflection) on every call, and every request and response goes through them.
   */
  private static final ClassValue<RecordComponent[]> COMPONENTS =
      new ClassValue<>() {
        @Override
        protected RecordComponent[] computeValue(Class<?> type) {
          return type.getRecordComponents();
        }
      };

  private static Constructor<?> constructor(Class<?> c, RecordComponent[] comps) {
    return CONSTRUCTORS.computeIfAbsent(
        c,
        k -> {
          Class<?>[] types = new Class<?>[comps.length];
          for (int i = 0; i < comps.length; i++) types[i] = comps[i].getType();
          try {
            return k.getDeclaredConstructor(types);
          } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static Failure mismatch(String path, String want, Object got) {
    return new Failure(
        "toolerr: the module's answer has " + (path.isEmpty() ? "a value" : "\"" + path + "\"") + " that is not " + want + ": " + got);
  }
}
