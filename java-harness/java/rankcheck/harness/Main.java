package rankcheck.harness;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The in-JVM repeat runner: runs an instrumented program's {@code main} once per execution the
 * agent asks for, each time in a fresh class loader so that static state starts fresh.
 *
 * <pre>
 * java -agentpath:librankcheck_agent.so=OPTIONS -cp rankcheck-rt.jar rankcheck.harness.Main \
 *      [--fail-on-output REGEX]... [--fail-on-file PATH=REGEX]... --cp APP_CP --main CLASS [--] ARGS...
 * java ... rankcheck.harness.Main --cp APP_CP --framework JUNIT_CP --test CLASS#METHOD
 * </pre>
 *
 * With {@code --test}, each execution runs one JUnit test method through the JUnit Platform
 * Launcher ({@link Framework}); the framework's class path is loaded once per JVM.
 *
 * The application class path is an argument, not part of {@code -cp}: classes on {@code -cp}
 * would be loaded once per JVM and keep their statics across executions. Oracles on output and
 * files are applied here, with {@link java.util.regex} ({@code find}, not a whole-text match).
 * Exit status: 0 no bug, 1 a bug, 2 bad input, 3 harness failure.
 */
public final class Main {
    private Main() {}

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
            status = run(options);
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

    private static int run(Options options) throws Exception {
        if (!Loop.connect()) {
            throw new BadInput("the rankcheck agent is not loaded (run java with -agentpath:librankcheck_agent.so)");
        }
        URL[] urls = Framework.urls(options.classPath);
        ClassLoader parent = Main.class.getClassLoader();
        // With the runtime jar on the boot class path (so that the JDK's rewritten
        // java.util.concurrent can call RC) this class comes from the boot loader; the
        // program's parent is then the platform loader, which sees every JDK module.
        if (parent == null) parent = ClassLoader.getPlatformClassLoader();
        Loop.Body body;
        if (options.test != null) {
            // The test framework is loaded once per JVM, outside every execution.
            ClassLoader framework = Framework.loader(Framework.urls(options.framework), parent);
            body = Framework.junit(framework, urls, options.test);
        } else {
            ClassLoader programParent = parent;
            body = index -> new Program(options, new URLClassLoader(urls, programParent));
        }
        Loop.run(body, Long.MAX_VALUE, result -> true);
        return Loop.exitStatus();
    }

    /** One execution of the program's {@code main}, in its own class loader. */
    private static final class Program extends Loop.Execution {
        private final Options options;
        private final Method main;

        Program(Options options, URLClassLoader loader) throws Exception {
            super(loader);
            this.options = options;
            for (FileOracle f : options.fileOracles) Files.deleteIfExists(f.path);
            this.main = findMain(loader, options.mainClass);
        }

        @Override
        protected void run() throws Throwable {
            try {
                main.invoke(null, (Object) options.args.clone());
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        /** The harness's oracles: {kind, message}, or null when they pass. */
        @Override
        protected String[] verdict(String stdout, String stderr) throws Exception {
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
            return null;
        }
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

    private static final class FileOracle {
        final Path path;
        final Pattern pattern;

        FileOracle(Path path, Pattern pattern) {
            this.path = path;
            this.pattern = pattern;
        }
    }

    private static final class Options {
        String classPath;
        String mainClass;
        /** A JUnit test method, CLASS#METHOD, instead of a main class. */
        String test;
        /** The test framework's class path (with --test). */
        String framework = "";
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
                    case "--test":
                        o.test = v;
                        break;
                    case "--framework":
                        o.framework = v;
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
            if ((o.mainClass == null) == (o.test == null)) {
                throw new IllegalArgumentException("either --main CLASS or --test CLASS#METHOD is required");
            }
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
    }
}
