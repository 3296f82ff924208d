package io.github.toolerr.internal;

import com.dylibso.chicory.runtime.ChicoryInterruptedException;
import com.dylibso.chicory.wasm.ChicoryException;
import com.dylibso.chicory.runtime.ExportFunction;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Memory;
import io.github.toolerr.Options;
import io.github.toolerr.ToolerrException;
import io.github.toolerr.abi.Abi;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Engine runs the module's raw path ({@code toolerr_buffer}, {@code toolerr_call}) on a pool of
 * instances, under the host policy of abi/ABI.md. Not API: {@link io.github.toolerr.Toolerr} is.
 *
 * <h2>Notes</h2>
 *
 * <ul>
 *   <li>Safe for concurrent use: a call takes an idle instance or makes one, up to maxInstances
 *       at once; further calls wait (interruptibly: {@code CANCELLED}).
 *   <li>A call runs on the calling thread. At its deadline one watching thread for the process
 *       interrupts that thread; the module's compiled code checks for interruption in every loop
 *       and call, so the call stops with {@code TIMEOUT} and its instance is discarded. An
 *       interrupt from elsewhere gives {@code CANCELLED}, and the thread's interrupt status is kept.
 *   <li>A call that runs out of the calling thread's stack (a request nested near the depth
 *       limit, while the JIT's frames are large) runs again, on a new instance, on a thread with a
 *       stack of {@link #DEEP_STACK_BYTES}: the answer is the module's, as on every engine.
 *   <li>A trap (out of memory, a stack overflow included) gives {@code TRAP} and discards the
 *       instance; the module's own refusals keep it. So does a call after which the instance's memory
 *       is over 1024 pages (read after every call): retirement
 *       by what the instance grew to, not by the request's size.
 * </ul>
 */
public final class Engine implements AutoCloseable {
  private static final int ERROR_FLAG = 1 << 31;

  private final InitImage image;
  private final int memoryMaxPages;
  private final long timeoutNanos;
  private final Semaphore slots;
  private final ConcurrentLinkedQueue<Slot> idle = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;

  /**
   * load checks the jar's module against its recorded digest (and the init image against the
   * module), and returns an engine with no instance yet.
   */
  public static Engine load(Options options) {
    String want = Module.recordedSha256(Module.resource(Module.SHA256_RESOURCE));
    verifyDigest(Module.resource(Module.WASM_RESOURCE), want);
    InitImage image = InitImage.decode(Module.resource(Module.IMAGE_RESOURCE));
    if (!image.wasmSha256.equals(want)) {
      throw new ToolerrException(
          ToolerrException.LOAD,
          "toolerr: the init image was made from a module with sha256 " + image.wasmSha256 + ", want " + want);
    }
    return new Engine(image, options);
  }

  /** verifyDigest refuses module bytes whose sha256 is not want. */
  static void verifyDigest(byte[] wasm, String want) {
    String got = Module.sha256(wasm);
    if (!got.equals(want)) {
      throw new ToolerrException(ToolerrException.LOAD, "toolerr: module sha256 is " + got + ", want " + want);
    }
  }

  private Engine(InitImage image, Options options) {
    this.image = image;
    this.memoryMaxPages = options.memoryMaxPages();
    Duration t = options.callTimeout();
    this.timeoutNanos = t.isNegative() || t.isZero() ? 0 : t.toNanos();
    this.slots = new Semaphore(options.maxInstances(), true);
  }

  /** One instance and its raw exports. */
  private static final class Slot {
    final Instance instance;
    final Memory memory;
    final ExportFunction buffer;
    final ExportFunction call;
    /**
     * The request buffer {@code toolerr_buffer} gave (0: none yet) and the size it was asked for: it
     * stays the buffer until a larger one is asked for (abi/ABI.md, "Raw path"), so a request that
     * fits needs no call.
     */
    int bufPtr;

    int bufSize;

    Slot(Instance instance) {
      this.instance = instance;
      this.memory = instance.memory();
      this.buffer = instance.export("toolerr_buffer");
      this.call = instance.export("toolerr_call");
    }
  }

  /** newInstance makes an instance from the init image, as if {@code _initialize} had run. */
  private Slot newSlot() {
    Instance instance = Module.instantiate(memoryMaxPages, new SecureRandom());
    image.restore(instance);
    return new Slot(instance);
  }

  /** Deadline interrupts the calling thread once at {@code at} (System.nanoTime), unless the call finished first. */
  private static final class Deadline {
    final Thread thread = Thread.currentThread();
    final long at;
    boolean done;
    boolean fired;

    Deadline(long at) {
      this.at = at;
    }

    synchronized void fire() {
      if (!done) {
        fired = true;
        thread.interrupt();
      }
    }

    /** finish ends the watch and tells whether the deadline passed. */
    synchronized boolean finish() {
      done = true;
      return fired;
    }
  }

  /**
   * Watchdog is the one thread that fires the deadlines of calls still running (a daemon,
   * "toolerr-deadline"). A call only adds its deadline to a set and removes it: the thread sleeps
   * until the earliest deadline it knows and is woken only for an earlier one (a shorter timeout,
   * or the first call after it found none), so calls one after another wake no thread. A timer
   * task per call woke the timer's thread twice a call.
   */
  private static final class Watchdog implements Runnable {
    static final Watchdog INSTANCE = new Watchdog();

    private final Set<Deadline> running = ConcurrentHashMap.newKeySet();
    /**
     * When the thread wakes next (System.nanoTime), or NEVER (until woken), or SCANNING (it is
     * reading the set: a deadline added now may be missed, so it is woken to read again).
     */
    private final AtomicLong wakeAt = new AtomicLong(NEVER);

    private static final long NEVER = Long.MAX_VALUE;
    private static final long SCANNING = Long.MIN_VALUE;

    private final Thread thread;

    private Watchdog() {
      thread = new Thread(this, "toolerr-deadline");
      thread.setDaemon(true);
      thread.start();
    }

    void watch(Deadline d) {
      running.add(d);
      long w = wakeAt.get();
      if (w == NEVER || w == SCANNING || d.at - w < 0) LockSupport.unpark(thread);
    }

    void forget(Deadline d) {
      running.remove(d);
    }

    @Override
    public void run() {
      for (;; ) {
        wakeAt.set(SCANNING);
        long now = System.nanoTime();
        long next = NEVER;
        for (Deadline d : running) {
          if (d.at - now <= 0) {
            running.remove(d);
            d.fire();
          } else if (next == NEVER || d.at - next < 0) {
            next = d.at;
          }
        }
        wakeAt.set(next);
        // A deadline added during the scan, or since and earlier than next, unparked this thread:
        // park then returns at once, and the set is read again.
        if (next == NEVER) {
          LockSupport.park(this);
        } else {
          LockSupport.parkNanos(this, next - now);
        }
        Thread.interrupted(); // nothing interrupts this thread on purpose: it keeps running
      }
    }
  }

  /**
   * call runs export on request and returns the response bytes, or throws ToolerrException with
   * the module's error or the host's TIMEOUT, CANCELLED or TRAP.
   */
  public byte[] call(String export, byte[] request) {
    return call(export, request, timeoutNanos);
  }

  /**
   * callUnbounded is call without the per-call time bound: the ABI check at load, which also
   * starts the first instance, may take longer than a short timeout allows a call.
   */
  public byte[] callUnbounded(String export, byte[] request) {
    return call(export, request, 0);
  }

  private byte[] call(String export, byte[] request, long timeoutNanos) {
    if (closed) throw new ToolerrException(ToolerrException.INVALID_REQUEST, "toolerr: the host is closed");
    if (request.length > Abi.POLICY_MAX_REQUEST_BYTES) {
      throw new ToolerrException(
          ToolerrException.REQUEST_TOO_LARGE,
          export + ": request is " + request.length + " bytes, over the limit of " + Abi.POLICY_MAX_REQUEST_BYTES);
    }
    byte[] name = export.getBytes(StandardCharsets.UTF_8);
    try {
      slots.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ToolerrException(ToolerrException.CANCELLED, export + ": the call was cancelled", e);
    }
    Slot slot = idle.poll();
    Deadline deadline = null;
    boolean keep = false;
    try {
      if (timeoutNanos > 0) {
        deadline = new Deadline(System.nanoTime() + timeoutNanos);
        Watchdog.INSTANCE.watch(deadline);
      }
      byte[] out;
      boolean moduleError;
      try {
        if (slot == null) slot = newSlot();
        long result;
        try {
          result = run(slot, name, request);
        } catch (RuntimeException | StackOverflowError e) {
          if (!stackExhausted(e)) throw e;
          // The calling thread's stack ran out, not the module's limits: its compiled frames grow
          // with the JIT's state, and a request nested near the depth limit can pass 1 MiB. The
          // instance is dropped and the call runs again, on a new one, on a thread with room.
          slot = newSlot();
          result = onDeepStack(slot, name, request);
        }
        int ptr = (int) (result >>> 32);
        int len = (int) result & ~ERROR_FLAG;
        moduleError = ((int) result & ERROR_FLAG) != 0;
        out = slot.memory.readBytes(ptr, len);
      } catch (ChicoryInterruptedException e) {
        throw interrupted(export, deadline, e);
      } catch (ToolerrException e) {
        throw e;
      } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
        if (deadline != null && deadline.finish()) throw interrupted(export, deadline, e);
        throw new ToolerrException(ToolerrException.TRAP, export + ": the module trapped: " + describe(e), e);
      }
      if (deadline != null && deadline.finish()) {
        // Answered, but after the deadline: too late to give, like a call still running.
        throw interrupted(export, deadline, null);
      }
      // Chicory's memory is read directly, so after every call: a small request can grow it too.
      keep = slot.memory.pages() <= Abi.POLICY_RETIRE_MEMORY_PAGES;
      if (moduleError) throw moduleError(out);
      return out;
    } finally {
      if (deadline != null) {
        Watchdog.INSTANCE.forget(deadline);
        deadline.finish(); // a deadline the watchdog read before it was forgotten fires no more
      }
      if (keep && !closed) idle.offer(slot);
      slots.release();
    }
  }

  /** DEEP_STACK_BYTES is the stack of the thread a call runs on again when the caller's ran out. */
  static final long DEEP_STACK_BYTES = 256L << 20;

  /** stackExhausted tells whether e is the JVM's stack running out inside the module. */
  private static boolean stackExhausted(Throwable e) {
    return e instanceof StackOverflowError || e instanceof ChicoryException && e.getCause() instanceof StackOverflowError;
  }

  /**
   * onDeepStack runs the call on a thread of its own with a stack of {@link #DEEP_STACK_BYTES},
   * the caller waiting: an interrupt of the caller (its deadline's, or another's) interrupts that
   * thread, whose call then stops as the caller's would have.
   */
  private static long onDeepStack(Slot slot, byte[] name, byte[] request) {
    long[] result = new long[1];
    Throwable[] failure = new Throwable[1];
    Thread deep =
        new Thread(
            null,
            () -> {
              try {
                result[0] = run(slot, name, request);
              } catch (Throwable e) {
                failure[0] = e;
              }
            },
            "toolerr-deep-call",
            DEEP_STACK_BYTES);
    deep.setDaemon(true);
    deep.start();
    boolean interrupted = false;
    while (true) {
      try {
        deep.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
        deep.interrupt();
      }
    }
    if (interrupted) Thread.currentThread().interrupt(); // as the call would have left it; sorted out by the caller
    if (failure[0] instanceof RuntimeException e) throw e;
    if (failure[0] instanceof Error e) throw e;
    return result[0];
  }

  private static long run(Slot slot, byte[] name, byte[] request) {
    int size = name.length + request.length;
    int ptr = slot.bufPtr;
    if (ptr == 0 || size > slot.bufSize) {
      ptr = (int) slot.buffer.apply(size)[0];
      if (ptr != 0) {
        slot.bufPtr = ptr;
        slot.bufSize = size;
      }
    }
    if (ptr == 0) {
      throw new ToolerrException(
          ToolerrException.REQUEST_TOO_LARGE,
          new String(name, StandardCharsets.UTF_8)
              + ": request is "
              + request.length
              + " bytes, over the limit of "
              + Abi.POLICY_MAX_REQUEST_BYTES);
    }
    slot.memory.write(ptr, name);
    slot.memory.write(ptr + name.length, request);
    return slot.call.apply(name.length, request.length)[0];
  }

  /** interrupted types an interrupt: our deadline's (TIMEOUT, status cleared) or another's (CANCELLED, kept). */
  private static ToolerrException interrupted(String export, Deadline deadline, Throwable cause) {
    if (deadline != null && deadline.finish()) {
      Thread.interrupted(); // ours: the caller's thread is not left interrupted
      return new ToolerrException(ToolerrException.TIMEOUT, export + ": the call ran out of time", cause);
    }
    Thread.currentThread().interrupt();
    return new ToolerrException(ToolerrException.CANCELLED, export + ": the call was cancelled", cause);
  }

  private static String describe(Throwable e) {
    if (e instanceof StackOverflowError) return "the JVM stack overflowed";
    if (e instanceof OutOfMemoryError) return "the JVM ran out of memory";
    String m = e.getMessage();
    return m == null || m.isEmpty() ? e.getClass().getSimpleName() : m;
  }

  /** moduleError decodes the ABI error object the module reported. */
  private static ToolerrException moduleError(byte[] raw) {
    String text = new String(raw, StandardCharsets.UTF_8);
    try {
      if (Json.parse(text) instanceof Map<?, ?> m && m.get("code") instanceof String code && !code.isEmpty()) {
        Object message = m.get("message");
        return new ToolerrException(code, message instanceof String s ? s : "");
      }
    } catch (Json.Failure ignored) {
      // reported below
    }
    return new ToolerrException(ToolerrException.INTERNAL, "undecodable module error: " + text);
  }

  /** idleInstances is how many instances wait for a call (for tests). */
  public int idleInstances() {
    return idle.size();
  }

  /** close drops every idle instance; calls after it fail. */
  @Override
  public void close() {
    closed = true;
    idle.clear();
  }
}
