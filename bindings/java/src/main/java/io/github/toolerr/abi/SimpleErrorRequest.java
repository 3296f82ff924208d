package io.github.toolerr.abi;

/** The request of simple_error (ABI 1.0). */
public record SimpleErrorRequest(String message, String code) {}
