package io.github.toolerr.abi;

/** The request of format_validation (ABI 1.1): issues as a validator reports them, in its dialect (zod, pydantic or jsonschema). */
public record FormatValidationRequest(String action, Object issues, Object args, String dialect, Object schema, Contract contract) {}
