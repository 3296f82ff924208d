package io.github.toolerr;

import io.github.toolerr.abi.Abi;

/**
 * ToolerrException is every failure of a call into the module: the module's own refusals ({@link
 * #INVALID_REQUEST}, {@link #REQUEST_TOO_LARGE}, {@link #INTERNAL}), which leave its instance in
 * service, and the host's ({@link #TIMEOUT}, {@link #CANCELLED}, {@link #TRAP}), after which the
 * instance is discarded; loading adds {@link #LOAD} and heal {@link #UNSUPPORTED_MCP}. The message
 * is the module's own: it starts with the export's name and names the field at fault.
 */
public class ToolerrException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Not JSON, a wrong shape or type, a missing or unknown field, an unknown export. */
  public static final String INVALID_REQUEST = Abi.CODE_INVALID_REQUEST;
  /** Over the request limit, or an answer over its budget of work. */
  public static final String REQUEST_TOO_LARGE = Abi.CODE_REQUEST_TOO_LARGE;
  /** A bug in the module: never expected. */
  public static final String INTERNAL = Abi.CODE_INTERNAL;
  /** The call ran past its time ({@link Options#callTimeout()}); the instance was discarded. */
  public static final String TIMEOUT = Abi.CODE_TIMEOUT;
  /** The calling thread was interrupted during the call; the instance was discarded. */
  public static final String CANCELLED = Abi.CODE_CANCELLED;
  /** The module trapped (running out of memory included); the instance was discarded. */
  public static final String TRAP = Abi.CODE_TRAP;
  /** The module could not be loaded: a wrong digest, an unsupported ABI major, a broken jar. */
  public static final String LOAD = "LOAD";
  /** Heal was given an MCP SDK outside the supported versions. */
  public static final String UNSUPPORTED_MCP = "UNSUPPORTED_MCP";

  private final String code;

  public ToolerrException(String code, String message) {
    super(message);
    this.code = code;
  }

  public ToolerrException(String code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  /** code is the ABI error code. */
  public String code() {
    return code;
  }

  @Override
  public String toString() {
    return "ToolerrException[" + code + "]: " + getMessage();
  }
}
