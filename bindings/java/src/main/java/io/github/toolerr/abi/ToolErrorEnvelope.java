package io.github.toolerr.abi;

import java.util.List;
import java.util.Map;

/**
 * A parsed {@code <tool_error>} (parse, kind "tool_error"); details as the text the envelope shows.
 * Written by hand: the tool_error members of abi/abi.json's Envelope (see {@link Envelope}).
 */
public record ToolErrorEnvelope(String kind, String code, String severity, boolean isError, String message, String recovery, List<String> availableActions, Map<String, String> details, Double retryAfter) implements Envelope {}
