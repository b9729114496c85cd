package rankcheck.harness.junit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClasspathRoots;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

import java.io.File;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.platform.commons.PreconditionViolationException;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherFactory;
import rankcheck.harness.BadInput;
import rankcheck.junit.RankcheckTest;

/**
 * {@code rankcheck junit}'s discovery: the test methods the JUnit Platform Launcher finds for
 * the selectors (or on the whole program class path), one line each, with the settings of
 * {@code @RankcheckTest}. Runs without the agent; nothing is executed.
 */
public final class Discovery {
    private Discovery() {}

    public static void run(URL[] app, String[] selectors, PrintStream out) throws Exception {
        URLClassLoader loader = new URLClassLoader(app, Discovery.class.getClassLoader());
        Explorer.withContext(loader, () -> {
            list(loader, app, selectors, out);
            return null;
        });
    }

    private static void list(ClassLoader loader, URL[] app, String[] selectors, PrintStream out) throws Exception {
        List<DiscoverySelector> chosen = new ArrayList<>();
        for (String s : selectors) {
            if (s.indexOf('#') >= 0) {
                Target target = Target.parse(s);
                Class<?> cls = target.load(loader);
                if (!hasMethod(cls, target.method)) {
                    throw new BadInput("selector " + s + ": class " + cls.getName() + " has no method " + target.method);
                }
                chosen.add(target.selector(cls));
            } else {
                try {
                    chosen.add(selectClass(Class.forName(s, false, loader)));
                } catch (ClassNotFoundException | LinkageError e) {
                    throw new BadInput("selector " + s + ": class cannot be loaded from the class path (" + e + ")");
                }
            }
        }
        if (selectors.length == 0) {
            Set<Path> roots = new LinkedHashSet<>();
            for (URL url : app) roots.add(new File(url.toURI()).toPath());
            chosen.addAll(selectClasspathRoots(roots));
        }
        Launcher launcher;
        TestPlan plan;
        try {
            launcher = LauncherFactory.create();
            plan = launcher.discover(request().selectors(chosen).build());
        } catch (PreconditionViolationException e) {
            throw new BadInput("JUnit cannot discover tests here: " + e.getMessage());
        }
        Map<String, String[]> tests = new LinkedHashMap<>();
        for (TestIdentifier root : plan.getRoots()) {
            for (TestIdentifier id : plan.getDescendants(root)) {
                TestSource source = id.getSource().orElse(null);
                if (!(source instanceof MethodSource)) continue;
                MethodSource m = (MethodSource) source;
                String params = m.getMethodParameterTypes();
                String key = m.getClassName() + "#" + m.getMethodName()
                        + (params == null || params.isEmpty() ? "" : "(" + params + ")");
                if (!tests.containsKey(key)) tests.put(key, new String[] {id.getDisplayName(), settings(m)});
            }
        }
        for (String s : selectors) {
            String prefix = s.indexOf('#') >= 0 ? Target.parse(s).toString() : s + "#";
            boolean matched = false;
            for (String key : tests.keySet()) matched |= key.startsWith(prefix);
            if (!matched) throw new BadInput("selector " + s + " matches no test of the JUnit engines on the class path");
        }
        if (tests.isEmpty()) throw new BadInput("no JUnit test found on the class path");
        for (Map.Entry<String, String[]> t : tests.entrySet()) {
            out.println("test\t" + t.getKey() + "\t" + clean(t.getValue()[0]) + "\t" + t.getValue()[1]);
        }
    }

    private static boolean hasMethod(Class<?> cls, String name) {
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name)) return true;
            }
        }
        for (Method m : cls.getMethods()) {
            if (m.getName().equals(name)) return true;
        }
        return false;
    }

    /** The {@code @RankcheckTest} settings of the method, as {@code key=value} words. */
    private static String settings(MethodSource source) {
        RankcheckTest r;
        try {
            r = source.getJavaMethod().getAnnotation(RankcheckTest.class);
        } catch (PreconditionViolationException | LinkageError e) {
            return "";
        }
        if (r == null) return "";
        StringBuilder s = new StringBuilder("executions=" + r.executions());
        if (!r.strategy().isEmpty()) s.append(" strategy=").append(r.strategy());
        if (r.seed() >= 0) s.append(" seed=").append(r.seed());
        int[] bounds = {r.c(), r.v(), r.t(), r.d(), r.l()};
        String[] names = {"c", "v", "t", "d", "l"};
        for (int i = 0; i < bounds.length; i++) {
            if (bounds[i] >= 0) s.append(' ').append(names[i]).append('=').append(bounds[i]);
        }
        return s.toString();
    }

    private static String clean(String text) {
        return text.replace('\t', ' ').replace('\n', ' ');
    }
}
