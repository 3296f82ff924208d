package io.github.toolerr.abi;

/** One {@code <change>} of a contract awareness block. */
public record Change(String severity, String field, String description, String before, String after) {}
