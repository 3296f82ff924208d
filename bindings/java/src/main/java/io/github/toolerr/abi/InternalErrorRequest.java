package io.github.toolerr.abi;

/** The request of internal_error (ABI 1.0): action needs tool. */
public record InternalErrorRequest(String message, String tool, String action) {}
