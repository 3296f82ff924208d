package io.github.toolerr.abi;

/** The request of validate (ABI 1.1): args checked against a JSON Schema inside the module. */
public record ValidateRequest(String action, Object schema, Object args, Contract contract) {}
