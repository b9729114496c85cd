package rankcheck.rt;

/**
 * Thrown by the hooks into every application thread still running when rankcheck ends an
 * execution (a bug was found, a bound was hit, or the program called {@code System.exit}), so
 * that the thread unwinds and dies instead of running on unscheduled. The harness's uncaught
 * exception handler ignores it. It carries no stack trace: it is control flow, not a failure.
 */
public final class ExecutionAborted extends Error {
    private static final long serialVersionUID = 1L;

    public ExecutionAborted(String why) {
        super(why, null, false, false);
    }
}
