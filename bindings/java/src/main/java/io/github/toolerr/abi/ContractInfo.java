package io.github.toolerr.abi;

import java.util.List;

/**
 * The {@code <contract_awareness>} block of a parsed validation error. Written by hand: it is
 * abi/abi.json's ParsedContract with Change records for its changes.
 */
public record ContractInfo(String tool, String action, int changeCount, String maxSeverity, List<Change> changes) {}
