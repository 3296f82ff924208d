package io.github.toolerr.abi;

/**
 * The response of gate (ABI 1.4): what a host does with one line from its client. verdict is
 * "pass" (hand the line on), "rewrite" (hand on line instead), "answer" (write response, a
 * JSON-RPC response without its line feed, back to the client) or "ignore" (reason says why).
 */
public record GateResponse(String verdict, String line, String response, String reason) {}
