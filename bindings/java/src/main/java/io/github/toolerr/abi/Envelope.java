package io.github.toolerr.abi;

/**
 * An envelope parse found: a {@link ToolErrorEnvelope} or a {@link ValidationEnvelope}. Written by
 * hand: abi/abi.json's Envelope is one flat object for both kinds, which the binding splits.
 */
public sealed interface Envelope permits ToolErrorEnvelope, ValidationEnvelope {
  /** kind is "tool_error" or "validation_error". */
  String kind();
}
