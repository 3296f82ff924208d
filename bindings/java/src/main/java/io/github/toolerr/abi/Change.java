package io.github.toolerr.abi;

/**
 * One {@code <change>} of a contract awareness block. Written by hand: abi/abi.json gives a parsed
 * change as a Delta, but the envelope has no category and names severity first.
 */
public record Change(String severity, String field, String description, String before, String after) {}
