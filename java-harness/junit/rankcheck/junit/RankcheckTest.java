package rankcheck.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import rankcheck.harness.junit.RankcheckExtension;

/**
 * A JUnit 5 test explored by rankcheck: the method runs many times, each time under a schedule
 * rankcheck chooses, with a fresh instance, its {@code @BeforeEach}/{@code @AfterEach}, and fresh
 * static state of the test's and the program's classes.
 *
 * <p>Run it with {@code rankcheck junit --cp CLASSPATH --select CLASS#METHOD}, or in any JUnit
 * launcher whose JVM runs rankcheck's agent with {@code plain=off} (README, "JUnit"). Anywhere
 * else the test fails and says how to run it.
 *
 * <p>The settings below are this test's own; unset ones (empty, -1) are the runner's: the flags of
 * {@code rankcheck junit}, or the agent's options.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Test
@ExtendWith(RankcheckExtension.class)
public @interface RankcheckTest {
    /** Executions to explore (under {@code rankcheck junit}: the test's budget). */
    long executions() default 1000;

    /** The strategy (rankcheck's names: pos, random, pct, rankchecker, icb, …); empty: the runner's. */
    String strategy() default "";

    /** The seed; -1: the runner's. */
    long seed() default -1;

    /** Preemption bound; -1: unset. */
    int c() default -1;

    /** Variable bound; -1: unset. */
    int v() default -1;

    /** Thread bound; -1: unset. */
    int t() default -1;

    /** PCT depth; -1: unset. */
    int d() default -1;

    /** Loop-iteration bound; -1: unset. */
    int l() default -1;
}
