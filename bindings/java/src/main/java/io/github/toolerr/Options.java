package io.github.toolerr;

import io.github.toolerr.abi.Abi;
import java.time.Duration;

/**
 * Options configures a {@link Toolerr}: the host policy of abi/ABI.md, with the same defaults as
 * every toolerr host (abi/abi.json's, through {@link Abi}).
 *
 * @param memoryMaxPages each instance's linear memory cap, in 64 KiB pages (default {@link
 *     #DEFAULT_MEMORY_MAX_PAGES})
 * @param callTimeout the time one call may take (default {@link #DEFAULT_CALL_TIMEOUT}); {@link
 *     Duration#ZERO} or negative: no bound
 * @param maxInstances instances alive at once, and so calls running at once (default the number
 *     of processors); further calls wait
 */
public record Options(int memoryMaxPages, Duration callTimeout, int maxInstances) {
  /** DEFAULT_MEMORY_MAX_PAGES is the policy's memoryMaxPages (8192 pages, 512 MiB, today). */
  public static final int DEFAULT_MEMORY_MAX_PAGES = Abi.POLICY_MEMORY_MAX_PAGES;
  /** DEFAULT_CALL_TIMEOUT is the policy's callTimeoutMs (10 s today). */
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofMillis(Abi.POLICY_CALL_TIMEOUT_MS);
  /** MAX_REQUEST_BYTES is the policy's maxRequestBytes: a larger request is refused unsent. */
  public static final int MAX_REQUEST_BYTES = Abi.POLICY_MAX_REQUEST_BYTES;
  /**
   * RETIRE_MEMORY_PAGES is the policy's retireMemoryPages: an instance whose linear memory grew past
   * it (1024 pages, 64 MiB, today) is retired after the call rather than reused, since linear
   * memory never shrinks and a heap grown near the cap would fail a later call that a fresh
   * instance serves.
   */
  public static final int RETIRE_MEMORY_PAGES = Abi.POLICY_RETIRE_MEMORY_PAGES;
  /**
   * MEMORY_CHECK_BYTES: after a call whose request or response is over this size (64 KiB), a host
   * that must ask the module how far an instance's memory grew (an Extism engine) asks. Chicory's
   * memory is read directly, after every call: a small request can grow it too.
   */
  public static final int MEMORY_CHECK_BYTES = Abi.MEMORY_CHECK_BYTES;

  public Options {
    if (memoryMaxPages < 0 || memoryMaxPages > 65536) {
      throw new IllegalArgumentException("memoryMaxPages must be between 1 and 65536 (0: the default), got " + memoryMaxPages);
    }
    if (maxInstances < 0) {
      throw new IllegalArgumentException("maxInstances must be positive (0: the default), got " + maxInstances);
    }
    if (memoryMaxPages == 0) memoryMaxPages = DEFAULT_MEMORY_MAX_PAGES;
    if (callTimeout == null) callTimeout = DEFAULT_CALL_TIMEOUT;
    if (maxInstances == 0) maxInstances = Runtime.getRuntime().availableProcessors();
  }

  /** defaults is the host policy's defaults. */
  public static Options defaults() {
    return new Options(0, null, 0);
  }

  /** withMemoryMaxPages returns these options with another memory cap. */
  public Options withMemoryMaxPages(int pages) {
    return new Options(pages, callTimeout, maxInstances);
  }

  /** withCallTimeout returns these options with another time per call. */
  public Options withCallTimeout(Duration timeout) {
    return new Options(memoryMaxPages, timeout, maxInstances);
  }

  /** withMaxInstances returns these options with another bound on instances. */
  public Options withMaxInstances(int instances) {
    return new Options(memoryMaxPages, callTimeout, instances);
  }
}
