package rankcheck.harness.junit;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.Callable;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import rankcheck.harness.BadInput;
import rankcheck.harness.Framework;
import rankcheck.harness.Loop;

/**
 * The executions of one JUnit test method, shared by {@code rankcheck junit} (through the
 * harness) and {@code @RankcheckTest} in a launcher ({@link InJvm}). Each execution loads the
 * test's and the program's classes in a fresh loader and discovers the method there, outside
 * control; under control, thread 0 only executes the discovered plan (the engine makes the
 * instance and runs {@code @BeforeEach}, the method, {@code @AfterEach}). A test the engine
 * reports failed is the execution's failure. The Launcher and its session are made once, in the
 * framework's loader: JUnit's own first-time work is no part of any execution.
 */
public final class Explorer {
    private Explorer() {}

    /** Parallel execution would run the test on JUnit's pool, out of rankcheck's control. */
    private static final String PARALLEL = "junit.jupiter.execution.parallel.enabled";
    /**
     * Jupiter's {@code @Timeout}s measure real time from a watcher thread the engine keeps for
     * the JVM; under rankcheck time is virtual (a timed wait fires when nothing else can run) and
     * that thread outlives the execution that made it, so a test of {@code 1 + 1} timed out and
     * the failure never replayed. rankcheck bounds each execution itself (deadlocks, steps, wall
     * time), so the test's timeouts are off.
     */
    private static final String TIMEOUTS = "junit.jupiter.execution.timeout.mode";

    /** The executions of {@code test} ({@code CLASS#METHOD}) over the program class path {@code app}. */
    public static Loop.Body body(URL[] app, String test) throws Exception {
        ClassLoader framework = Explorer.class.getClassLoader();
        Target target = Target.parse(test);
        Launcher launcher = withContext(framework, Explorer::launcher);
        return index -> {
            URLClassLoader loader = Framework.fresh(app, framework);
            Class<?> cls = target.load(loader);
            TestPlan plan = withContext(loader, () -> launcher.discover(request(target, cls)));
            if (!plan.containsTests()) {
                loader.close();
                throw new BadInput("test " + target + " matches no test of the JUnit engines on the class path");
            }
            return new Execution(loader, launcher, plan, target);
        };
    }

    /**
     * The throughput baseline: runs {@code test} {@code times} times with the plain launcher in
     * this JVM, the classes loaded once, no rankcheck.
     */
    public static void repeat(URL[] app, String test, long times) throws Exception {
        Target target = Target.parse(test);
        URLClassLoader loader = new URLClassLoader(app, Explorer.class.getClassLoader());
        Class<?> cls = target.load(loader);
        Launcher launcher = withContext(loader, Explorer::launcher);
        Outcome outcome = new Outcome(false);
        // The test's body, as rankcheck runs it: a @RankcheckTest runs as it is.
        Exploring.now = true;
        for (long i = 0; i < times; i++) {
            withContext(loader, () -> {
                launcher.execute(request(target, cls), outcome);
                return null;
            });
        }
        System.out.println("ran\t" + times + "\tfailed\t" + outcome.failures);
    }

    /**
     * A launcher of one session kept for the JVM: a launcher of {@code LauncherFactory.create()}
     * opens a session, looking engines and listeners up, for every request.
     */
    private static Launcher launcher() {
        return LauncherFactory.openSession().getLauncher();
    }

    private static LauncherDiscoveryRequest request(Target target, Class<?> cls) {
        return LauncherDiscoveryRequestBuilder.request()
                .selectors(target.selector(cls))
                .configurationParameter(PARALLEL, "false")
                .configurationParameter(TIMEOUTS, "disabled")
                .build();
    }

    /** Runs {@code work} with {@code loader} as the thread's context loader (JUnit reads it). */
    static <T> T withContext(ClassLoader loader, Callable<T> work) throws Exception {
        Thread me = Thread.currentThread();
        ClassLoader before = me.getContextClassLoader();
        me.setContextClassLoader(loader);
        try {
            return work.call();
        } finally {
            me.setContextClassLoader(before);
        }
    }

    /** One execution of the discovered plan. */
    private static final class Execution extends Loop.Execution {
        private final Launcher launcher;
        private final TestPlan plan;
        private final Target target;
        private final Outcome outcome = new Outcome(true);

        Execution(URLClassLoader loader, Launcher launcher, TestPlan plan, Target target) {
            super(loader);
            this.launcher = launcher;
            this.plan = plan;
            this.target = target;
        }

        @Override
        protected void run() {
            Exploring.now = true;
            try {
                launcher.execute(plan, outcome);
            } finally {
                Exploring.now = false;
            }
        }

        @Override
        protected String[] verdict(String stdout, String stderr) throws BadInput {
            if (!outcome.started && outcome.skipped != null) {
                throw new BadInput("test " + target + " was not run: " + outcome.skipped);
            }
            return null;
        }
    }

    /**
     * What the engine reported, in the thread that runs the plan. A failed test or container is
     * the failure of that thread; rankcheck's own abort of an execution is not.
     */
    private static final class Outcome implements TestExecutionListener {
        private final boolean report;
        boolean started;
        String skipped;
        long failures;

        Outcome(boolean report) {
            this.report = report;
        }

        @Override
        public void executionStarted(TestIdentifier id) {
            if (id.isTest()) started = true;
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (skipped == null) skipped = id.getDisplayName() + " skipped: " + reason;
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (result.getStatus() != TestExecutionResult.Status.FAILED) return;
            failures++;
            if (!report) return;
            Throwable why = result.getThrowable()
                    .orElseGet(() -> new AssertionError(id.getDisplayName() + " failed without a throwable"));
            Loop.uncaught(Thread.currentThread(), why);
        }
    }
}
