package rankcheck.harness;

/**
 * The harness's side of the agent: natives exported by {@code librankcheck_agent.so}
 * ({@code Java_rankcheck_harness_Agent_*}). See agent/PROTOCOL.md.
 */
final class Agent {
    private Agent() {}

    /** Binds the hooks ({@code RC.on = true}); returns the number of executions planned (or -1 unbounded). */
    static native long connect();

    /**
     * Hands the instrumented program's site table (tab-separated lines) to the agent; true when
     * a site calls the platform MBean server.
     */
    static native boolean loadSites(String table);

    /** The index of the next execution to run, or -1 when the run is over. */
    static native long nextExecution();

    /** Makes {@code root} the execution's thread 0; the caller starts it right after. */
    static native void startExecution(Thread root);

    /**
     * Blocks until the execution has ended (every thread finished, a bug, a bound, an exit) and
     * its threads are gone or given up on. Runs the watchdog meanwhile.
     */
    static native void awaitExecution();

    /** An application thread died of {@code e}; {@code trace} is its printed stack trace. */
    static native void uncaught(Thread t, Throwable e, String trace);

    /**
     * Completes the execution's result with its output and the harness's own oracle verdict
     * ({@code oracle} null when the oracles passed), writes it, and returns it (the JSON line of
     * agent/PROTOCOL.md, non-ASCII escaped).
     */
    static native String finishExecution(String stdout, String stderr, String oracle, String message);

    /** The JVM's exit status after the last execution: 0 no bug, 1 bug. */
    static native int exitStatus();
}
