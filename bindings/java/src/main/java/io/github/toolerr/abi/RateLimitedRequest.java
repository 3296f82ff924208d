package io.github.toolerr.abi;

/** The request of rate_limited (ABI 1.0). */
public record RateLimitedRequest(Double max, Double windowSeconds, Double retryAfter, String key) {}
