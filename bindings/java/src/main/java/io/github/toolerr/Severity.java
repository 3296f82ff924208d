package io.github.toolerr;

/** Severity of a tool error: only {@link #WARNING} rides the success path ({@code isError: false}). */
public enum Severity {
  ERROR("error"),
  CRITICAL("critical"),
  WARNING("warning");

  private final String wire;

  Severity(String wire) {
    this.wire = wire;
  }

  /** toString is the ABI's name: error, critical or warning. */
  @Override
  public String toString() {
    return wire;
  }
}
