package io.github.toolerr;

import io.github.toolerr.abi.CallToolResult;
import io.github.toolerr.abi.ToolErrorRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * ErrorBuilder builds a {@code <tool_error>}: {@link Toolerr#toolError(String, String)} starts one,
 * the fluent methods add to it, {@link #render()} asks the module for the result and {@link
 * #exception()} makes it something to throw.
 *
 * <pre>{@code
 * CallToolResult r = Toolerr.toolError("NOT_FOUND", "No invoice with that ID")
 *     .suggest("List invoices first, then retry with a real ID")
 *     .actions("billing.list_invoices")
 *     .detail("requestedId", id)
 *     .render();
 * }</pre>
 *
 * A builder is not safe for concurrent mutation; once built, hand it around freely.
 */
public final class ErrorBuilder {
  private final String code;
  private final String message;
  private String suggestion;
  private final List<String> actions = new ArrayList<>();
  private Severity severity;
  private final Map<String, Object> details = new LinkedHashMap<>();
  private Double retryAfter;

  ErrorBuilder(String code, String message) {
    this.code = Objects.requireNonNull(code, "code");
    this.message = Objects.requireNonNull(message, "message");
  }

  /** suggest sets the recovery the model reads: what to do instead. */
  public ErrorBuilder suggest(String suggestion) {
    this.suggestion = suggestion;
    return this;
  }

  /** actions adds tools the model may call next, in order. */
  public ErrorBuilder actions(String... actions) {
    this.actions.addAll(List.of(actions));
    return this;
  }

  /** actions adds tools the model may call next, in order. */
  public ErrorBuilder actions(Collection<String> actions) {
    this.actions.addAll(actions);
    return this;
  }

  /** severity sets error (the default), critical or warning (which rides the success path). */
  public ErrorBuilder severity(Severity severity) {
    this.severity = severity;
    return this;
  }

  /** detail adds one detail; values are strings, numbers or booleans, kept in the order added. */
  public ErrorBuilder detail(String key, Object value) {
    details.remove(key);
    details.put(key, value);
    return this;
  }

  /** details adds every entry of details, in its iteration order. */
  public ErrorBuilder details(Map<String, ?> details) {
    details.forEach(this::detail);
    return this;
  }

  /** retryAfter sets the seconds after which a retry may succeed (rendered when finite and above 0). */
  public ErrorBuilder retryAfter(double seconds) {
    this.retryAfter = seconds;
    return this;
  }

  /** code is the error code. */
  public String code() {
    return code;
  }

  /** message is the error message. */
  public String message() {
    return message;
  }

  /** request is the tool_error request this builder stands for. */
  public ToolErrorRequest request() {
    return ToolErrorRequest.of(code, message)
        .withSuggestion(suggestion)
        .withAvailableActions(actions.isEmpty() ? null : List.copyOf(actions))
        .withSeverity(severity == null ? null : severity.toString())
        .withDetails(details.isEmpty() ? null : new LinkedHashMap<>(details))
        .withRetryAfter(retryAfter);
  }

  /** render asks the process-wide module ({@link Toolerr#shared()}) for the result. */
  public CallToolResult render() {
    return Toolerr.shared().toolError(request());
  }

  /** render asks host for the result. */
  public CallToolResult render(Toolerr host) {
    return host.toolError(request());
  }

  /** exception makes this error something to throw; a healed handler renders it intact. */
  public ToolErrorException exception() {
    return new ToolErrorException(this);
  }

  @Override
  public String toString() {
    return "ErrorBuilder[" + code + ": " + message + "]";
  }
}
