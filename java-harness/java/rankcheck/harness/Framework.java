package rankcheck.harness;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The test framework (JUnit) beside the program: which class-path entries are the framework's,
 * the class loaders (the framework once per JVM, the program fresh per execution), and the way
 * into rankcheck's JUnit side (rankcheck-junit.jar, which needs JUnit's classes and so is loaded
 * by the framework's loader). No JUnit class is named here, so a class path without JUnit gets a
 * clear error instead of a linkage error.
 *
 * <pre>
 * java -cp rankcheck-rt.jar rankcheck.harness.Framework discover --lib rankcheck-junit.jar --cp CP [--select CLASS[#METHOD]]...
 * java -cp rankcheck-rt.jar rankcheck.harness.Framework repeat --lib rankcheck-junit.jar --cp CP --test CLASS#METHOD --times N
 * </pre>
 *
 * {@code discover} prints tab-separated lines: {@code framework PATH}, {@code app PATH},
 * {@code note TEXT}, {@code test CLASS#METHOD DISPLAY-NAME SETTINGS}; {@code repeat} runs a test
 * N times with the plain launcher, uncontrolled (the throughput baseline). Exit status 0, 2 for
 * bad input ({@code error TEXT} on stdout), 3 for a failure.
 */
public final class Framework {
    private Framework() {}

    /** Packages of the test frameworks and of rankcheck: loaded once, never per execution. */
    private static final String[] PACKAGES = {
        "org/junit/", "junit/", "org/opentest4j/", "org/apiguardian/", "org/hamcrest/", "rankcheck/"
    };

    /** Where Debian's junit5 package puts the launcher, for class paths that lack one. */
    private static final String DEBIAN_LAUNCHER = "/usr/share/java/junit-platform-launcher.jar";

    private static final String LAUNCHER_CLASS = "org/junit/platform/launcher/core/LauncherFactory.class";

    /** The entries of a {@code :}-separated class path, each of which must exist. */
    public static URL[] urls(String cp) throws BadInput {
        List<URL> urls = new ArrayList<>();
        for (String part : cp.split(File.pathSeparator)) {
            if (part.isEmpty()) continue;
            File f = new File(part);
            if (!f.exists()) throw new BadInput("class path entry " + part + " does not exist");
            try {
                urls.add(f.toURI().toURL());
            } catch (IOException e) {
                throw new BadInput("class path entry " + part + ": " + e.getMessage());
            }
        }
        return urls.toArray(new URL[0]);
    }

    /** Whether a class-path entry (a folder or a jar) holds a test framework's classes. */
    public static boolean isFramework(File entry) {
        if (entry.isDirectory()) {
            for (String p : PACKAGES) {
                if (new File(entry, p).isDirectory()) return true;
            }
            return false;
        }
        try (ZipFile zip = new ZipFile(entry)) {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                if (!name.endsWith(".class")) continue;
                for (String p : PACKAGES) {
                    if (name.startsWith(p)) return true;
                }
            }
        } catch (IOException e) {
            // Not a jar: not the framework's.
        }
        return false;
    }

    /** Whether a class name belongs to the JDK, a test framework or rankcheck. */
    static boolean frameworkClass(String name) {
        if (name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")
                || name.startsWith("sun.") || name.startsWith("com.sun.")) {
            return true;
        }
        String path = name.replace('.', '/');
        for (String p : PACKAGES) {
            if (path.startsWith(p)) return true;
        }
        return false;
    }

    /** The framework's loader, made once per JVM. */
    public static ClassLoader loader(URL[] framework, ClassLoader parent) {
        return new URLClassLoader(framework, parent);
    }

    /**
     * A fresh loader of the program's classes for one execution: it defines every class of
     * {@code app} itself, even when {@code parent} could load it too (a test launcher's loader
     * holds the test classes), so static state starts fresh; the JDK's, the frameworks' and
     * rankcheck's classes come from {@code parent}.
     */
    public static URLClassLoader fresh(URL[] app, ClassLoader parent) {
        return new Fresh(app, parent);
    }

    private static final class Fresh extends URLClassLoader {
        static {
            registerAsParallelCapable();
        }

        Fresh(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (frameworkClass(name)) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try {
                        c = findClass(name);
                    } catch (ClassNotFoundException e) {
                        return super.loadClass(name, resolve);
                    }
                }
                if (resolve) resolveClass(c);
                return c;
            }
        }
    }

    /**
     * The executions of JUnit test {@code test} ({@code CLASS#METHOD}), each in a fresh loader
     * of {@code app} under {@code framework}: rankcheck-junit.jar's Explorer.
     */
    public static Loop.Body junit(ClassLoader framework, URL[] app, String test) throws Exception {
        return (Loop.Body) call(framework, "Explorer", "body", new Class<?>[] {URL[].class, String.class}, app, test);
    }

    /** Calls a static method of a class of rankcheck-junit.jar, loaded by {@code framework}. */
    private static Object call(ClassLoader framework, String cls, String method, Class<?>[] types, Object... args)
            throws Exception {
        if (framework.getResource(LAUNCHER_CLASS) == null) {
            throw new BadInput("no JUnit Platform launcher on the class path (junit-platform-launcher.jar; "
                    + "Debian: apt-get install junit5)");
        }
        Class<?> explorer;
        try {
            explorer = Class.forName("rankcheck.harness.junit." + cls, true, framework);
        } catch (ClassNotFoundException e) {
            throw new BadInput("rankcheck's JUnit support (rankcheck-junit.jar) is not on the framework class path");
        } catch (LinkageError e) {
            throw new BadInput("JUnit on the class path is not usable: " + e);
        }
        try {
            return explorer.getMethod(method, types).invoke(null, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) throw (Exception) cause;
            if (cause instanceof LinkageError) throw new BadInput("JUnit on the class path is not usable: " + cause);
            throw e;
        }
    }

    public static void main(String[] argv) {
        PrintStream out = System.out;
        int status;
        try {
            status = command(argv, out);
        } catch (BadInput e) {
            out.println("error\t" + e.getMessage().replace('\n', ' '));
            status = 2;
        } catch (Throwable e) {
            System.err.print("rankcheck harness: internal failure: ");
            e.printStackTrace();
            status = 3;
        }
        out.flush();
        System.exit(status);
    }

    private static int command(String[] argv, PrintStream out) throws Exception {
        if (argv.length == 0) throw new BadInput("discover or repeat?");
        String lib = null;
        String cp = null;
        String test = null;
        long times = 1;
        List<String> selectors = new ArrayList<>();
        for (int i = 1; i < argv.length; i += 2) {
            if (i + 1 >= argv.length) throw new BadInput(argv[i] + " needs a value");
            String v = argv[i + 1];
            switch (argv[i]) {
                case "--lib":
                    lib = v;
                    break;
                case "--cp":
                    cp = v;
                    break;
                case "--select":
                    selectors.add(v);
                    break;
                case "--test":
                    test = v;
                    break;
                case "--times":
                    times = Long.parseLong(v);
                    break;
                default:
                    throw new BadInput("unknown option " + argv[i]);
            }
        }
        if (lib == null || cp == null) throw new BadInput("--lib and --cp are required");
        List<URL> framework = new ArrayList<>();
        List<URL> app = new ArrayList<>();
        framework.add(new File(lib).toURI().toURL());
        boolean launcher = false;
        for (URL url : urls(cp)) {
            File f = new File(url.toURI());
            if (isFramework(f)) {
                framework.add(url);
                if (argv[0].equals("discover")) out.println("framework\t" + f.getPath());
                launcher |= new URLClassLoader(new URL[] {url}, null).getResource(LAUNCHER_CLASS) != null;
            } else {
                app.add(url);
                if (argv[0].equals("discover")) out.println("app\t" + f.getPath());
            }
        }
        // Build tools' test class paths often lack the launcher (their runner brings its own).
        if (!launcher && framework.size() > 1 && new File(DEBIAN_LAUNCHER).isFile()) {
            framework.add(new File(DEBIAN_LAUNCHER).toURI().toURL());
            if (argv[0].equals("discover")) {
                out.println("framework\t" + DEBIAN_LAUNCHER);
                out.println("note\tthe class path has no JUnit Platform launcher: using " + DEBIAN_LAUNCHER);
            }
        }
        if (framework.size() == 1) {
            throw new BadInput("no JUnit on the class path (" + cp + "): give the test classes with their "
                    + "JUnit jars (Debian: /usr/share/java/junit-jupiter-api.jar, junit-platform-*.jar, ...)");
        }
        ClassLoader fw = loader(framework.toArray(new URL[0]), Framework.class.getClassLoader());
        URL[] appUrls = app.toArray(new URL[0]);
        switch (argv[0]) {
            case "discover":
                call(fw, "Discovery", "run", new Class<?>[] {URL[].class, String[].class, PrintStream.class},
                        appUrls, selectors.toArray(new String[0]), out);
                return 0;
            case "repeat":
                if (test == null) throw new BadInput("--test CLASS#METHOD is required");
                call(fw, "Explorer", "repeat", new Class<?>[] {URL[].class, String.class, long.class}, appUrls, test, times);
                return 0;
            default:
                throw new BadInput("unknown command " + argv[0]);
        }
    }
}
