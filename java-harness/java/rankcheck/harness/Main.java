package rankcheck.harness;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import rankcheck.rt.ExecutionAborted;

/**
 * The in-JVM repeat runner: runs an instrumented program's {@code main} once per execution the
 * agent asks for, each time in a fresh class loader so that static state starts fresh.
 *
 * <pre>
 * java -agentpath:librankcheck_agent.so=OPTIONS -cp rankcheck-rt.jar rankcheck.harness.Main \
 *      [--fail-on-output REGEX]... [--fail-on-file PATH=REGEX]... --cp APP_CP --main CLASS [--] ARGS...
 * </pre>
 *
 * The application class path is an argument, not part of {@code -cp}: classes on {@code -cp}
 * would be loaded once per JVM and keep their statics across executions. Oracles on output and
 * files are applied here, with {@link java.util.regex} ({@code find}, not a whole-text match).
 * Exit status: 0 no bug, 1 a bug, 2 bad input, 3 harness failure.
 */
public final class Main {
    private Main() {}

    /** Captured output per stream and execution; beyond it the text is cut (and says so). */
    private static final int OUTPUT_CAP = 1 << 20;

    public static void main(String[] argv) {
        PrintStream realOut = System.out;
        PrintStream realErr = System.err;
        Options options;
        try {
            options = Options.parse(argv);
        } catch (IllegalArgumentException e) {
            realErr.println("rankcheck harness: error: " + e.getMessage());
            realErr.flush();
            Runtime.getRuntime().halt(2);
            return;
        }
        int status;
        try {
            status = run(options, realOut, realErr);
        } catch (BadInput e) {
            System.setOut(realOut);
            System.setErr(realErr);
            realErr.println("rankcheck harness: error: " + e.getMessage());
            status = 2;
        } catch (Throwable e) {
            System.setOut(realOut);
            System.setErr(realErr);
            realErr.print("rankcheck harness: internal failure: ");
            e.printStackTrace(realErr);
            status = 3;
        }
        realOut.flush();
        realErr.flush();
        // halt, not exit: threads of aborted executions that could not be stopped must not keep
        // the JVM alive, and the program's shutdown hooks belong to executions that are over.
        Runtime.getRuntime().halt(status);
    }

    private static int run(Options options, PrintStream realOut, PrintStream realErr) throws Exception {
        try {
            Agent.connect();
        } catch (UnsatisfiedLinkError e) {
            throw new BadInput("the rankcheck agent is not loaded (run java with -agentpath:librankcheck_agent.so)");
        }
        URL[] urls = options.classPath();
        ClassLoader parent = Main.class.getClassLoader();
        // With the runtime jar on the boot class path (so that the JDK's rewritten
        // java.util.concurrent can call RC) this class comes from the boot loader; the
        // program's parent is then the platform loader, which sees every JDK module.
        if (parent == null) parent = ClassLoader.getPlatformClassLoader();
        boolean first = true;
        Thread.UncaughtExceptionHandler handler = Main::uncaught;
        while (Agent.nextExecution() >= 0) {
            for (FileOracle f : options.fileOracles) Files.deleteIfExists(f.path);
            URLClassLoader loader = new URLClassLoader(urls, parent);
            loader.setDefaultAssertionStatus(true);
            if (first) {
                Agent.loadSites(siteTable(loader));
                first = false;
            }
            Method main = findMain(loader, options.mainClass);
            Capture out = new Capture();
            Capture err = new Capture();
            Thread.setDefaultUncaughtExceptionHandler(handler);
            System.setOut(out.stream);
            System.setErr(err.stream);
            String[] args = options.args.clone();
            Thread root = new Thread(() -> runMain(main, args), "main");
            root.setContextClassLoader(loader);
            try {
                Agent.startExecution(root);
                root.start();
                Agent.awaitExecution();
            } finally {
                System.setOut(realOut);
                System.setErr(realErr);
            }
            String stdout = out.text();
            String stderr = err.text();
            String[] verdict = oracles(options, stdout, stderr);
            Agent.finishExecution(stdout, stderr, verdict[0], verdict[1]);
            try {
                loader.close();
            } catch (Exception ignored) {
                // A jar that cannot be closed only costs a file handle.
            }
        }
        return Agent.exitStatus();
    }

    /** The harness's oracles: {kind, message}, or {null, null} when they pass. */
    private static String[] oracles(Options options, String stdout, String stderr) throws Exception {
        for (Pattern p : options.outputPatterns) {
            if (p.matcher(stdout).find()) {
                return new String[] {"output", "stdout matches /" + p.pattern() + "/"};
            }
            if (p.matcher(stderr).find()) {
                return new String[] {"output", "stderr matches /" + p.pattern() + "/"};
            }
        }
        for (FileOracle f : options.fileOracles) {
            if (Files.exists(f.path)) {
                String text = new String(Files.readAllBytes(f.path), StandardCharsets.UTF_8);
                if (f.pattern.matcher(text).find()) {
                    return new String[] {"file", f.path + " matches /" + f.pattern.pattern() + "/"};
                }
            }
        }
        return new String[] {null, null};
    }

    private static void runMain(Method main, String[] args) {
        try {
            main.invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            uncaught(Thread.currentThread(), e.getCause());
        } catch (Throwable e) {
            uncaught(Thread.currentThread(), e);
        }
    }

    private static void uncaught(Thread t, Throwable e) {
        if (e instanceof ExecutionAborted) return;
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        Agent.uncaught(t, e, trace.toString());
    }

    private static Method findMain(ClassLoader loader, String name) throws BadInput {
        Class<?> cls;
        try {
            cls = Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new BadInput("main class " + name + " not found on the application class path (" + e + ")");
        }
        try {
            Method m = cls.getMethod("main", String[].class);
            if (!Modifier.isStatic(m.getModifiers())) throw new NoSuchMethodException();
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException | SecurityException e) {
            throw new BadInput("class " + name + " has no public static void main(String[])");
        }
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

    private static final class FileOracle {
        final Path path;
        final Pattern pattern;

        FileOracle(Path path, Pattern pattern) {
            this.path = path;
            this.pattern = pattern;
        }
    }

    private static final class BadInput extends Exception {
        private static final long serialVersionUID = 1L;

        BadInput(String message) {
            super(message);
        }
    }

    private static final class Options {
        String classPath;
        String mainClass;
        String[] args = new String[0];
        final List<Pattern> outputPatterns = new ArrayList<>();
        final List<FileOracle> fileOracles = new ArrayList<>();

        static Options parse(String[] argv) {
            Options o = new Options();
            int i = 0;
            while (i < argv.length) {
                String a = argv[i];
                if (a.equals("--")) {
                    i++;
                    break;
                }
                if (!a.startsWith("--")) break;
                if (i + 1 >= argv.length) throw new IllegalArgumentException(a + " needs a value");
                String v = argv[i + 1];
                i += 2;
                switch (a) {
                    case "--cp":
                        o.classPath = v;
                        break;
                    case "--main":
                        o.mainClass = v;
                        break;
                    case "--fail-on-output":
                        o.outputPatterns.add(regex(v));
                        break;
                    case "--fail-on-file": {
                        int eq = v.indexOf('=');
                        if (eq <= 0) throw new IllegalArgumentException("--fail-on-file wants PATH=REGEX, not " + v);
                        o.fileOracles.add(new FileOracle(Path.of(v.substring(0, eq)), regex(v.substring(eq + 1))));
                        break;
                    }
                    default:
                        throw new IllegalArgumentException("unknown option " + a);
                }
            }
            if (o.classPath == null) throw new IllegalArgumentException("--cp APP_CLASSPATH is required");
            if (o.mainClass == null) throw new IllegalArgumentException("--main CLASS is required");
            List<String> rest = new ArrayList<>();
            for (; i < argv.length; i++) rest.add(argv[i]);
            o.args = rest.toArray(new String[0]);
            return o;
        }

        private static Pattern regex(String text) {
            try {
                return Pattern.compile(text, Pattern.MULTILINE);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("bad regex " + text + ": " + e.getDescription());
            }
        }

        URL[] classPath() throws Exception {
            List<URL> urls = new ArrayList<>();
            for (String part : classPath.split(File.pathSeparator)) {
                if (part.isEmpty()) continue;
                File f = new File(part);
                if (!f.exists()) throw new BadInput("class path entry " + part + " does not exist");
                urls.add(f.toURI().toURL());
            }
            return urls.toArray(new URL[0]);
        }
    }
}
