package rankcheck.harness.junit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import org.junit.platform.engine.discovery.MethodSelector;
import rankcheck.harness.BadInput;

/** A test method as rankcheck names it: {@code CLASS#METHOD} or {@code CLASS#METHOD(TYPE, …)}. */
final class Target {
    final String className;
    final String method;
    /** The parameter types, comma-separated as JUnit writes them, or null for none. */
    final String params;

    private Target(String className, String method, String params) {
        this.className = className;
        this.method = method;
        this.params = params;
    }

    static Target parse(String text) throws BadInput {
        int hash = text.indexOf('#');
        if (hash <= 0 || hash == text.length() - 1) {
            throw new BadInput("a test is CLASS#METHOD, not " + text);
        }
        String method = text.substring(hash + 1);
        String params = null;
        int open = method.indexOf('(');
        if (open >= 0) {
            if (!method.endsWith(")")) throw new BadInput("a test is CLASS#METHOD(TYPES), not " + text);
            params = method.substring(open + 1, method.length() - 1).trim();
            method = method.substring(0, open);
            if (params.isEmpty()) params = null;
        }
        return new Target(text.substring(0, hash), method, params);
    }

    /** The loaded class, or bad input naming what is missing. */
    Class<?> load(ClassLoader loader) throws BadInput {
        try {
            return Class.forName(className, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new BadInput("test class " + className + " cannot be loaded from the class path (" + e + ")");
        }
    }

    MethodSelector selector(Class<?> cls) {
        return params == null ? selectMethod(cls, method) : selectMethod(cls, method, params);
    }

    @Override
    public String toString() {
        return className + "#" + method + (params == null ? "" : "(" + params + ")");
    }
}
