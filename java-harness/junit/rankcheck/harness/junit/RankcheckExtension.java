package rankcheck.harness.junit;

import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.AssertionFailedError;

/**
 * The extension behind {@code @RankcheckTest}. Inside one of rankcheck's executions the test
 * method runs as it is; called by a launcher, it explores the method in this JVM ({@link InJvm})
 * instead of running it once, and fails with how to run it when rankcheck is not there.
 *
 * <p>Names no class of the runtime jar: without it on the class path this class still loads and
 * the failure says what is missing.
 */
public final class RankcheckExtension implements InvocationInterceptor {
    @Override
    public void interceptTestMethod(
            Invocation<Void> invocation, ReflectiveInvocationContext<Method> context, ExtensionContext extension)
            throws Throwable {
        if (Exploring.now) {
            invocation.proceed();
            return;
        }
        invocation.skip();
        Class<?> cls = context.getTargetClass();
        Method method = context.getExecutable();
        try {
            InJvm.explore(cls, method);
        } catch (LinkageError e) {
            throw new AssertionFailedError(Advice.notHere(Advice.test(cls, method),
                    "rankcheck's runtime jar (rankcheck-rt.jar) is not on this JVM's class path (" + e + ")"));
        }
    }
}
