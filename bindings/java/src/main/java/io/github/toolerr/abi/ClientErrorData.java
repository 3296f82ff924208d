package io.github.toolerr.abi;

import java.util.List;
import java.util.Map;

/**
 * The clientError of check_result (ABI 1.3): every member, always, in the module order. Written by
 * hand: abi/abi.json gives it as an Envelope, which has an isError this object lacks.
 */
public record ClientErrorData(String kind, String code, String severity, String message, String recovery, List<String> availableActions, Map<String, String> details, Double retryAfter, String action, List<Field> fields, ContractInfo contract) {}
