package io.github.toolerr.abi;

/** The request of server_busy (ABI 1.0). */
public record ServerBusyRequest(String tool, Double active, Double queued) {}
