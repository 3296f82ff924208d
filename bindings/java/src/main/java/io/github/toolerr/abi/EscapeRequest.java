package io.github.toolerr.abi;

/** The request of escape (ABI 1.0): context is "content" or "attribute". */
public record EscapeRequest(String text, String context) {}
