package io.github.toolerr.abi;

/** The module limits describe reports. */
public record Limits(long maxRequestBytes, int maxDepth, int maxValues) {}
