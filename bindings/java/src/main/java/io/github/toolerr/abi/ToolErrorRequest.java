package io.github.toolerr.abi;

import java.util.List;
import java.util.Map;

/** The request of tool_error (ABI 1.0): code and message required; details keep their order. */
public record ToolErrorRequest(String code, String message, String suggestion, List<String> availableActions, String severity, Map<String, Object> details, Double retryAfter) {}
