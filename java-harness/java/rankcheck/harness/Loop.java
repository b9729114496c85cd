package rankcheck.harness;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.function.Predicate;
import rankcheck.rt.ExecutionAborted;
import rankcheck.rt.RC;

/**
 * The agent's per-execution protocol (agent/PROTOCOL.md), written once for every way rankcheck
 * runs code under control: a program's {@code main} ({@link Main}) and a JUnit test method
 * (rankcheck-junit.jar). For each execution the agent grants, the caller readies an
 * {@link Execution} outside control (a fresh class loader, the code to run); the loop runs it in
 * a new thread 0 named {@code main} with its output captured, waits for the end, applies the
 * caller's oracle and hands the result to the agent.
 */
public final class Loop {
    private Loop() {}

    /** Captured output per stream and execution; beyond it the text is cut (and says so). */
    private static final int OUTPUT_CAP = 1 << 20;

    /** One execution, readied outside control. */
    public abstract static class Execution {
        /** The execution's class loader: thread 0's context loader; its site tables are read. */
        protected final ClassLoader loader;

        protected Execution(ClassLoader loader) {
            this.loader = loader;
        }

        /** Runs in thread 0, under control; a throwable is the thread's failure. */
        protected abstract void run() throws Throwable;

        /**
         * After the execution, outside control: the caller's oracle over the output,
         * {@code {kind, message}}, or null when it passes.
         */
        protected String[] verdict(String stdout, String stderr) throws Exception {
            return null;
        }

        /** After the verdict: release what the execution held (its loader's open jars). */
        protected void close() {
            if (loader instanceof Closeable) {
                try {
                    ((Closeable) loader).close();
                } catch (IOException ignored) {
                    // A jar that cannot be closed only costs a file handle.
                }
            }
        }
    }

    /** Readies execution {@code index}. */
    public interface Body {
        Execution prepare(long index) throws Exception;
    }

    /** Binds the agent; false when it is not loaded in this JVM. */
    public static boolean connect() {
        try {
            Agent.connect();
            return true;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /**
     * Runs executions while the agent grants them, at most {@code limit}; {@code results} gets
     * each execution's result line and says whether to go on. Restores the JVM's streams and default uncaught-exception
     * handler at the end.
     */
    public static void run(Body body, long limit, Predicate<String> results) throws Exception {
        PrintStream realOut = System.out;
        PrintStream realErr = System.err;
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.UncaughtExceptionHandler handler = Loop::uncaught;
        boolean first = true;
        MBeans mbeans = null;
        try {
            for (long n = 0; n < limit; n++) {
                long index = Agent.nextExecution();
                if (index < 0) break;
                Execution ex = body.prepare(index);
                if (first) {
                    if (Agent.loadSites(siteTable(ex.loader))) mbeans = new MBeans();
                    first = false;
                }
                if (mbeans != null) mbeans.remember();
                Capture out = new Capture();
                Capture err = new Capture();
                Thread.setDefaultUncaughtExceptionHandler(handler);
                System.setOut(out.stream);
                System.setErr(err.stream);
                RC.forgetShutdownHooks();
                Thread root = new Thread(() -> runRoot(ex), "main");
                root.setContextClassLoader(ex.loader);
                try {
                    Agent.startExecution(root);
                    root.start();
                    Agent.awaitExecution();
                } finally {
                    System.setOut(realOut);
                    System.setErr(realErr);
                }
                if (mbeans != null) mbeans.forgetNew();
                String stdout = out.text();
                String stderr = err.text();
                String[] verdict = ex.verdict(stdout, stderr);
                if (verdict == null) verdict = new String[] {null, null};
                String result = Agent.finishExecution(stdout, stderr, verdict[0], verdict[1]);
                ex.close();
                if (!results.test(result)) break;
            }
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
            System.setOut(realOut);
            System.setErr(realErr);
        }
    }

    /** The JVM's exit status after the last execution: 0 no bug, 1 bug. */
    public static int exitStatus() {
        return Agent.exitStatus();
    }

    private static void runRoot(Execution ex) {
        try {
            ex.run();
            RC.afterMain();
        } catch (Throwable e) {
            uncaught(Thread.currentThread(), e);
        }
    }

    /**
     * Reports that {@code t} failed with {@code e} (an uncaught throwable, or a test the engine
     * reported as failed): the execution's failure unless rankcheck itself ended it.
     */
    public static void uncaught(Thread t, Throwable e) {
        if (e instanceof ExecutionAborted) return;
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        Agent.uncaught(t, e, trace.toString());
    }

    private static String siteTable(ClassLoader loader) throws Exception {
        StringBuilder table = new StringBuilder();
        Enumeration<URL> tables = loader.getResources("META-INF/rankcheck/sites.tsv");
        while (tables.hasMoreElements()) {
            try (InputStream in = tables.nextElement().openStream()) {
                table.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                table.append('\n');
            }
        }
        return table.toString();
    }

    /**
     * The JVM-wide MBean server of a program that uses it, made the same for every execution:
     * created before the first one (outside control: creating it inside would give that
     * execution steps no later execution and no replay of a later one has), and cleared after
     * each execution of the names it registered (a pool that registers itself as {@code pool}
     * would otherwise find the name taken and register as {@code pool2}, {@code pool3}, ...).
     */
    private static final class MBeans {
        final javax.management.MBeanServer server =
                java.lang.management.ManagementFactory.getPlatformMBeanServer();
        java.util.Set<javax.management.ObjectName> before = java.util.Set.of();

        void remember() {
            before = server.queryNames(null, null);
        }

        void forgetNew() {
            for (javax.management.ObjectName name : server.queryNames(null, null)) {
                if (before.contains(name)) continue;
                try {
                    server.unregisterMBean(name);
                } catch (javax.management.JMException | RuntimeException e) {
                    // Gone already, or its preDeregister refused: the next execution may see it.
                }
            }
        }
    }

    /** One execution's stdout or stderr, kept in memory up to {@link #OUTPUT_CAP} bytes. */
    private static final class Capture {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                int room = OUTPUT_CAP - count;
                if (room > 0) super.write(b, off, Math.min(len, room));
                if (len > room) cut = true;
            }

            @Override
            public synchronized void write(int b) {
                if (count < OUTPUT_CAP) super.write(b);
                else cut = true;
            }
        };
        volatile boolean cut;
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            stream.flush();
            String s = new String(bytes.toByteArray(), StandardCharsets.UTF_8);
            return cut ? s + "\n[rankcheck: output cut at " + OUTPUT_CAP + " bytes]\n" : s;
        }
    }
}
