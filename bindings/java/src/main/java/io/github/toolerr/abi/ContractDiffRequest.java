package io.github.toolerr.abi;

/** The request of contract_diff (ABI 1.2). */
public record ContractDiffRequest(Object before, Object after) {}
