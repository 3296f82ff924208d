package io.github.toolerr.abi;

/** One change between two contracts (contract_diff, ABI 1.2). */
public record Delta(String category, String field, String severity, String description, String before, String after) {}
