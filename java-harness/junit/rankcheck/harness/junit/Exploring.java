package rankcheck.harness.junit;

/**
 * Whether one of rankcheck's executions is under way in this JVM: then a {@code @RankcheckTest}
 * method runs as it is. Its own class, naming no JUnit type, so that JUnit 4 tests (no Jupiter
 * API on the class path) can set it too.
 */
final class Exploring {
    private Exploring() {}

    static volatile boolean now;
}
