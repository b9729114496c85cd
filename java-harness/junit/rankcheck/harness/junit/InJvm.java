package rankcheck.harness.junit;

import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.opentest4j.AssertionFailedError;
import rankcheck.harness.Framework;
import rankcheck.harness.Loop;
import rankcheck.junit.RankcheckTest;

/**
 * {@code @RankcheckTest} in a launcher's JVM under rankcheck's agent ({@code plain=off}): the
 * test method's executions run here, through {@link Explorer}, in the agent's one session of
 * this JVM (its strategy, seed and bounds; its execution indices go on from test to test). The
 * test fails at the first failing execution, with the schedule written beside and how to replay
 * it; {@code rankcheck junit} also replays it in a fresh JVM before calling it a bug.
 */
final class InJvm {
    private InJvm() {}

    static void explore(Class<?> cls, Method method) throws Exception {
        String test = Advice.test(cls, method);
        RankcheckTest wanted = method.getAnnotation(RankcheckTest.class);
        Map<String, String> agent = AgentOptions.ofThisJvm();
        if (agent == null) throw fail(Advice.notHere(test, "this JVM does not run rankcheck's agent"));
        if (!"off".equals(agent.get("plain"))) {
            throw fail(Advice.notHere(test, "the agent runs this JVM's main class as one controlled execution; "
                    + "give it plain=off"));
        }
        String mismatch = mismatch(wanted, agent);
        if (mismatch != null) {
            throw fail(Advice.notHere(test, "it asks for " + mismatch + " and the agent of this JVM runs otherwise "
                    + "(one session per JVM)"));
        }
        if (!Loop.connect()) throw fail(Advice.notHere(test, "the agent's natives are not bound"));
        Loop.Body body = Explorer.body(appClassPath(cls.getClassLoader()), test);
        long asked = wanted == null ? 1000 : wanted.executions();
        Tally tally = new Tally();
        Loop.run(body, asked, tally::add);
        if (tally.bug != null) throw fail(bugReport(test, tally.bug, agent));
        if (tally.inconclusive != null) {
            throw fail("rankcheck could not decide " + test + ": execution " + number(tally.inconclusive.get("index"))
                    + " gave no verdict: " + tally.inconclusive.get("message"));
        }
        if (tally.executions < asked) {
            throw fail("rankcheck explored " + test + " " + tally.executions + " time(s) of the " + asked + " asked: "
                    + "the agent's session of this JVM ended (its executions= counts every test's executions; "
                    + "it stops at a bug unless keep-going=on; the strategy may be exhausted)");
        }
        System.out.println("rankcheck: " + test + ": " + tally.executions + " execution(s), no bug found");
    }

    /** What the agent returned, execution by execution; stops at the first bug. */
    private static final class Tally {
        long executions;
        Map<String, Object> bug;
        Map<String, Object> inconclusive;

        @SuppressWarnings("unchecked")
        boolean add(String line) {
            executions++;
            if (line == null) return true;
            Map<String, Object> r = (Map<String, Object>) Json.parse(line);
            Object outcome = r.get("outcome");
            if ("bug".equals(outcome)) {
                bug = r;
                return false;
            }
            if ("inconclusive".equals(outcome) && inconclusive == null) inconclusive = r;
            return true;
        }
    }

    private static String bugReport(String test, Map<String, Object> r, Map<String, String> agent) throws Exception {
        long index = number(r.get("index"));
        String name = test.replaceAll("[^A-Za-z0-9_.-]", "_");
        Path schedule = Paths.get("rankcheck-schedule-" + name + "-" + index + ".txt").toAbsolutePath();
        Object text = r.get("schedule");
        if (text instanceof String) Files.write(schedule, ((String) text).getBytes(StandardCharsets.UTF_8));
        StringBuilder s = new StringBuilder();
        s.append("rankcheck: BUG in execution ").append(index).append(" (").append(r.get("kind")).append("): ")
                .append(r.get("message")).append('\n');
        Object trace = r.get("trace");
        if (trace instanceof String) {
            // The test's frames; those of the launcher below them say nothing of the bug.
            for (String line : ((String) trace).split("\n")) {
                if (line.contains("org.junit.platform.") || line.contains("rankcheck.harness.")) break;
                s.append(line).append('\n');
            }
        }
        s.append("schedule: ").append(schedule).append('\n');
        s.append("replay it: run this test alone with replay=").append(schedule).append(",first-execution=")
                .append(index).append(",seed=").append(agent.getOrDefault("seed", "0"))
                .append(" added to the agent's options;\n");
        s.append("for a report replayed in a fresh JVM: rankcheck junit --cp CLASSPATH --select '").append(test)
                .append("'");
        return s.toString();
    }

    /** The test's settings that differ from the agent's, in words, or null. */
    private static String mismatch(RankcheckTest wanted, Map<String, String> agent) {
        if (wanted == null) return null;
        List<String> differ = new ArrayList<>();
        if (!wanted.strategy().isEmpty() && !wanted.strategy().equals(agent.getOrDefault("strategy", "random"))) {
            differ.add("strategy=" + wanted.strategy());
        }
        if (wanted.seed() >= 0 && !String.valueOf(wanted.seed()).equals(agent.getOrDefault("seed", "0"))) {
            differ.add("seed=" + wanted.seed());
        }
        int[] bounds = {wanted.c(), wanted.v(), wanted.t(), wanted.d(), wanted.l()};
        String[] names = {"c", "v", "t", "d", "l"};
        for (int i = 0; i < bounds.length; i++) {
            if (bounds[i] >= 0 && !String.valueOf(bounds[i]).equals(agent.get(names[i]))) {
                differ.add(names[i] + "=" + bounds[i]);
            }
        }
        return differ.isEmpty() ? null : String.join(",", differ);
    }

    /**
     * The program's class path as the launcher gave it: every entry of the test class's loader
     * chain (and of the JVM's class path) that is not a test framework's or rankcheck's.
     */
    static URL[] appClassPath(ClassLoader loader) throws Exception {
        Set<File> entries = new LinkedHashSet<>();
        for (ClassLoader l = loader; l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader) {
                for (URL url : ((URLClassLoader) l).getURLs()) {
                    if ("file".equals(url.getProtocol())) entries.add(new File(url.toURI()));
                }
            }
        }
        for (String part : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (!part.isEmpty()) entries.add(new File(part).getAbsoluteFile());
        }
        List<URL> app = new ArrayList<>();
        for (File f : entries) {
            if (f.exists() && !Framework.isFramework(f)) app.add(f.toURI().toURL());
        }
        return app.toArray(new URL[0]);
    }

    private static long number(Object o) {
        return o instanceof Number ? ((Number) o).longValue() : -1;
    }

    private static AssertionFailedError fail(String message) {
        return new AssertionFailedError(message);
    }
}
