package io.github.toolerr.abi;

import java.util.List;

/** The response of contract_diff (ABI 1.2). */
public record Diff(List<Delta> deltas, String maxSeverity, boolean backwardsCompatible) {}
