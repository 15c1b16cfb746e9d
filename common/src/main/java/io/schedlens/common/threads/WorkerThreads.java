package io.schedlens.common.threads;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The apps' own threads: daemons whose death is never silent. An {@link Error} (an OutOfMemoryError
 * above all) on any of them ends the process with exit code 3, as {@code
 * -XX:+ExitOnOutOfMemoryError} does, so that Kubernetes restarts it: a process that lives on with
 * its send pump or a scheduler dead would answer its probes while doing nothing. A periodic task
 * that throws a {@link RuntimeException} is logged and runs again at its next turn (a scheduled
 * executor would otherwise cancel it without a word).
 */
public final class WorkerThreads {

  private static final Logger log = LoggerFactory.getLogger(WorkerThreads.class);

  /** The exit code of a process ended by an Error, the JVM's own for ExitOnOutOfMemoryError. */
  public static final int EXIT_ON_ERROR = 3;

  private WorkerThreads() {}

  /** A daemon thread, not started, whose Error ends the process. */
  public static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.setUncaughtExceptionHandler(WorkerThreads::died);
    return t;
  }

  /** Daemon threads named {@code name}, or {@code name-N} after the first, for an executor. */
  public static ThreadFactory factory(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      int i = n.incrementAndGet();
      return daemon(i == 1 ? name : name + "-" + i, r);
    };
  }

  /**
   * A periodic task for a scheduled executor: a RuntimeException is logged and the task runs again;
   * an Error ends the process (an executor would keep both to itself).
   */
  public static Runnable periodic(String what, Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        log.error("{} failed; it runs again at its next turn", what, e);
      } catch (Error e) {
        died(Thread.currentThread(), e);
      }
    };
  }

  /** What happens when a worker thread ends with a throwable it did not catch. */
  static void died(Thread t, Throwable e) {
    if (e instanceof Error) {
      // Logged as simply as possible: the heap may be exhausted. halt, not exit: shutdown hooks
      // could wait for the very thread that died.
      System.err.println(
          "FATAL: thread " + t.getName() + " died of " + e + "; the process exits to be restarted");
      e.printStackTrace();
      Runtime.getRuntime().halt(EXIT_ON_ERROR);
    }
    log.error("thread {} stopped by an error it did not catch", t.getName(), e);
  }
}
