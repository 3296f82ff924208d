package io.github.toolerr.abi;

import java.util.Map;

/**
 * One tool of a lockfile: its name, digest and canonical contract. Written by hand, as {@link
 * Lockfile} is.
 */
public record LockedTool(String name, String digest, Map<String, Object> contract) {}
