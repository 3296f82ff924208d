package io.github.toolerr.abi;

/** One content block of a CallToolResult: {"type":"text","text":TEXT}. */
public record Content(String type, String text) {}
