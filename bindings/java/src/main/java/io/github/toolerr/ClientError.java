package io.github.toolerr;

import io.github.toolerr.abi.ClientErrorData;

/**
 * ClientError is what {@link Toolerr#checkResult} throws for an {@code isError} result: the
 * envelope read back, as the module's {@code check_result} reports it (a warning is a success and
 * throws nothing). {@link #data} holds every member: kind, code, severity, message, recovery,
 * available actions, details, retry after, and for a validation error its action, fields and
 * contract.
 */
public class ClientError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient ClientErrorData data;

  public ClientError(ClientErrorData data) {
    super(data.code() + ": " + data.message());
    this.data = data;
  }

  /** data is every member check_result gives. */
  public ClientErrorData data() {
    return data;
  }
}
