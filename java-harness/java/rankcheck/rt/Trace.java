package rankcheck.rt;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.IdentityHashMap;

/**
 * Access tracing without the agent, for checking the alias analysis against real runs.
 *
 * <p>Enabled by {@code -Drankcheck.trace=PATH}. Every object that passes the {@code allocated}
 * hook is remembered with its allocation site; every data hook records the pair (access site,
 * what it touched): the allocation site of the object, {@code static} for a static field, or
 * {@code unknown} for an object whose allocation was not seen (made by the JDK, by
 * {@code clone}, or still inside its constructor). The distinct pairs are written to PATH at
 * exit, one per line: {@code siteHex TAB (allocSiteHex | static | unknown)}.
 */
public final class Trace {
    private Trace() {}

    private static final String PATH = System.getProperty("rankcheck.trace");

    /** Constant, so that the JIT folds the guarded calls in RC away when tracing is off. */
    public static final boolean ON = PATH != null;

    private static final long STATIC = Long.MIN_VALUE;
    private static final long UNKNOWN = Long.MIN_VALUE + 1;

    private static final Object LOCK = new Object();
    private static final IdentityHashMap<Object, Long> ALLOCATED = new IdentityHashMap<>();
    private static final HashSet<Pair> SEEN = new HashSet<>();

    private static final class Pair {
        final long site;
        final long what;

        Pair(long site, long what) {
            this.site = site;
            this.what = what;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Pair && ((Pair) o).site == site && ((Pair) o).what == what;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(site) * 31 + Long.hashCode(what);
        }
    }

    static {
        if (ON) {
            Runtime.getRuntime().addShutdownHook(new Thread(Trace::write, "rankcheck-trace"));
        }
    }

    /** A data access at {@code site} to {@code obj} ({@code null} for a static field). */
    public static void access(Object obj, long site) {
        synchronized (LOCK) {
            long what;
            if (obj == null) {
                what = STATIC;
            } else {
                Long alloc = ALLOCATED.get(obj);
                what = alloc == null ? UNKNOWN : alloc;
            }
            SEEN.add(new Pair(site, what));
        }
    }

    /** {@code obj} was allocated at {@code site}. */
    public static void allocated(Object obj, long site) {
        synchronized (LOCK) {
            ALLOCATED.put(obj, site);
        }
    }

    private static void write() {
        StringBuilder out = new StringBuilder();
        synchronized (LOCK) {
            for (Pair p : SEEN) {
                out.append(Long.toHexString(p.site)).append('\t');
                if (p.what == STATIC) {
                    out.append("static");
                } else if (p.what == UNKNOWN) {
                    out.append("unknown");
                } else {
                    out.append(Long.toHexString(p.what));
                }
                out.append('\n');
            }
        }
        try (Writer w = new OutputStreamWriter(new FileOutputStream(PATH), StandardCharsets.UTF_8)) {
            w.write(out.toString());
        } catch (IOException e) {
            System.err.println("rankcheck: cannot write the trace " + PATH + ": " + e);
        }
    }
}
