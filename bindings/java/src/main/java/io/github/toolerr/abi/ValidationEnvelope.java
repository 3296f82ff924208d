package io.github.toolerr.abi;

import java.util.List;

/**
 * A parsed {@code <validation_error>} (parse, kind "validation_error"); contract is null without
 * {@code <contract_awareness>}. Written by hand: the validation_error members of abi/abi.json's
 * Envelope (see {@link Envelope}).
 */
public record ValidationEnvelope(String kind, String action, List<Field> fields, String recovery, ContractInfo contract) implements Envelope {}
