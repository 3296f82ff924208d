package io.github.toolerr.abi;

/** An envelope parse found: a {@link ToolErrorEnvelope} or a {@link ValidationEnvelope}. */
public sealed interface Envelope permits ToolErrorEnvelope, ValidationEnvelope {
  /** kind is "tool_error" or "validation_error". */
  String kind();
}
