package io.github.toolerr.abi;

/** One {@code <field>} of a validation error. */
public record Field(String name, String message) {}
