package io.github.toolerr;

import io.github.toolerr.abi.ClientErrorData;
import io.github.toolerr.abi.ContractInfo;
import io.github.toolerr.abi.Field;
import java.util.List;
import java.util.Map;

/**
 * ClientError is what {@link Toolerr#checkResult} throws for an {@code isError} result: the
 * envelope read back, as the module's {@code check_result} reports it (a warning is a success and
 * throws nothing).
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

  /** kind is "tool_error", "validation_error" or null (no envelope). */
  public String kind() {
    return data.kind();
  }

  public String code() {
    return data.code();
  }

  public String severity() {
    return data.severity();
  }

  public String recovery() {
    return data.recovery();
  }

  public List<String> availableActions() {
    return data.availableActions();
  }

  public Map<String, String> details() {
    return data.details();
  }

  /** retryAfter is the seconds the envelope gives, or null. */
  public Double retryAfter() {
    return data.retryAfter();
  }

  public String action() {
    return data.action();
  }

  public List<Field> fields() {
    return data.fields();
  }

  public ContractInfo contract() {
    return data.contract();
  }
}
