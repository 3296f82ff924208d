package io.github.toolerr.abi;

import java.util.List;

/**
 * A contract lockfile (contract_lock, ABI 1.2), members in the order the module writes them.
 * Written by hand: abi/abi.json gives contract_lock's answer as any JSON.
 */
public record Lockfile(int lockfileVersion, String digest, List<LockedTool> tools) {}
