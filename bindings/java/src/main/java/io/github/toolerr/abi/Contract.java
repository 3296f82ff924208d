package io.github.toolerr.abi;

import java.util.List;

/** Contract awareness for a validation error: deltas, or lockfile and tools (the module diffs them). */
public record Contract(String tool, String action, List<Delta> deltas, Integer maxDeltas, Boolean includeAllSeverities, Object lockfile, Object tools) {}
