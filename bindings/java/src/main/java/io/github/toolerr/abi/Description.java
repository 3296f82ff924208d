package io.github.toolerr.abi;

import java.util.List;

/** The response of describe (ABI 1.0). */
public record Description(String abiVersion, String version, List<String> exports, List<String> codes, List<String> severities, List<String> dialects, Limits limits) {}
