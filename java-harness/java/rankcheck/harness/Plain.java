package rankcheck.harness;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import rankcheck.rt.ExecutionAborted;

/**
 * The agent's Java side when the JVM's own main class runs under it ("plain main": {@code java
 * -agentpath:…=OPTIONS -cp APP:rankcheck-rt.jar Main}). The agent calls {@link #start} from its
 * VMInit callback, before the main class is loaded, and {@link #flush} before it ends the JVM.
 */
final class Plain {
    private Plain() {}

    /**
     * Routes uncaught throwables of every thread (the main thread's too: the launcher hands its
     * exception to the default handler when it detaches) to the agent, and returns the site
     * tables found on the class path.
     */
    static String start() throws Exception {
        Thread.setDefaultUncaughtExceptionHandler(Plain::uncaught);
        StringBuilder table = new StringBuilder();
        Enumeration<URL> tables = ClassLoader.getSystemClassLoader().getResources("META-INF/rankcheck/sites.tsv");
        while (tables.hasMoreElements()) {
            try (InputStream in = tables.nextElement().openStream()) {
                table.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                table.append('\n');
            }
        }
        return table.toString();
    }

    /** The program's buffered output, before the agent ends the process. */
    static void flush() {
        System.out.flush();
        System.err.flush();
    }

    private static void uncaught(Thread t, Throwable e) {
        if (e instanceof ExecutionAborted) return;
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        // As plain Java would: the program's users expect to see it.
        System.err.print("Exception in thread \"" + t.getName() + "\" " + trace);
        Agent.uncaught(t, e, trace.toString());
    }
}
