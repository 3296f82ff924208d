package io.github.toolerr.abi;

/** The request of contract_lock (ABI 1.2): a tools array, a tools/list result or a lockfile. */
public record ContractLockRequest(Object tools) {}
