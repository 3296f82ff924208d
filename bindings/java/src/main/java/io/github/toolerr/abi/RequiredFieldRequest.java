package io.github.toolerr.abi;

/** The request of required_field (ABI 1.0). */
public record RequiredFieldRequest(String field) {}
