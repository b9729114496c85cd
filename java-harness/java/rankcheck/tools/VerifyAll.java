package rankcheck.tools;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Loads and links every class of a jar or directory without initializing any, and prints one
 * line per class: {@code OK <name>} or {@code FAIL <name> <error class>: <message>}.
 *
 * <p>{@code Class.forName(name, false, loader)} loads without initializing; asking for the
 * declared members then makes HotSpot link the class, which runs the bytecode verifier (for
 * classes outside the boot loader by default; add {@code -XX:+BytecodeVerificationLocal} for
 * boot classes). No static initializer runs, so instrumented classes need not find the agent.
 *
 * <p>Usage: {@code VerifyAll JAR_OR_DIR [CLASSPATH_ENTRY…]}, or {@code VerifyAll --boot DIR}
 * to load DIR's classes by name through the boot loader (for {@code --patch-module}).
 */
public final class VerifyAll {
    private VerifyAll() {}

    public static void main(String[] args) throws Exception {
        boolean boot = args.length > 0 && args[0].equals("--boot");
        int first = boot ? 1 : 0;
        if (args.length <= first) {
            System.err.println("usage: VerifyAll [--boot] JAR_OR_DIR [CLASSPATH_ENTRY...]");
            System.exit(2);
        }
        File input = new File(args[first]);
        List<String> names = classNames(input);
        ClassLoader loader = null;
        if (!boot) {
            List<URL> urls = new ArrayList<>();
            for (int i = first; i < args.length; i++) urls.add(new File(args[i]).toURI().toURL());
            loader = new URLClassLoader(urls.toArray(new URL[0]), VerifyAll.class.getClassLoader());
        }
        StringBuilder out = new StringBuilder();
        for (String name : names) {
            out.append(check(name, loader)).append('\n');
        }
        System.out.print(out);
        System.out.flush();
    }

    private static String check(String name, ClassLoader loader) {
        try {
            Class<?> c = Class.forName(name, false, loader);
            c.getDeclaredFields();
            c.getDeclaredMethods();
            c.getDeclaredConstructors();
            return "OK " + name;
        } catch (Throwable t) {
            String message = String.valueOf(t.getMessage()).replace('\n', ' ');
            return "FAIL " + name + " " + t.getClass().getName() + ": " + message;
        }
    }

    /** Binary names of the classes in a jar or directory, sorted (module-info and versioned
     * entries excluded). */
    static List<String> classNames(File input) throws IOException {
        List<String> names = new ArrayList<>();
        if (input.isDirectory()) {
            Path root = input.toPath();
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(p -> p.toString().endsWith(".class"))
                        .map(p -> root.relativize(p).toString().replace(File.separatorChar, '/'))
                        .forEach(n -> addName(names, n));
            }
        } else {
            try (ZipFile zip = new ZipFile(input)) {
                Enumeration<? extends ZipEntry> entries = zip.entries();
                while (entries.hasMoreElements()) {
                    ZipEntry e = entries.nextElement();
                    if (!e.isDirectory()) addName(names, e.getName());
                }
            }
        }
        Collections.sort(names);
        return names;
    }

    private static void addName(List<String> names, String path) {
        if (!path.endsWith(".class") || path.startsWith("META-INF/") || path.endsWith("module-info.class")) {
            return;
        }
        names.add(path.substring(0, path.length() - ".class".length()).replace('/', '.'));
    }
}
