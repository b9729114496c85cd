package rankcheck.rt;

import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The methods and constructors of a class in one order in every JVM: sorted by name, then by
 * their full signature ({@code toString()}: modifiers, return type, declaring class and
 * parameter types, which tells every member of one array apart). HotSpot hands them out in
 * the order their name symbols lie in memory, which changes from one JVM run to the next; a
 * program that stops at the first match, or registers handlers in that order, would otherwise
 * take other steps in a fresh JVM than in the run a schedule was recorded in.
 *
 * <p>The {@code public synthetic int hashCode()} the rewriter adds to the program's classes
 * (their pinned identity hash) is not the program's: it is left out of a class's declared
 * methods, and its public methods show {@code Object.hashCode} in its place, as without
 * rankcheck.
 */
final class Reflection {
    private Reflection() {}

    /** A class, not a lambda: no bootstrap (JDK work on first use) inside an execution. */
    private static final class Order implements Comparator<Executable> {
        @Override
        public int compare(Executable a, Executable b) {
            int byName = a.getName().compareTo(b.getName());
            return byName != 0 ? byName : a.toString().compareTo(b.toString());
        }
    }

    private static final Comparator<Executable> ORDER = new Order();

    private static final Method OBJECT_HASH_CODE = objectHashCode();

    private static Method objectHashCode() {
        try {
            return Object.class.getMethod("hashCode");
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    /** True for the pinned-hash override the rewriter adds; javac never makes a synthetic one. */
    private static boolean addedByRankcheck(Method m) {
        return m.isSynthetic()
                && m.getParameterCount() == 0
                && m.getReturnType() == int.class
                && m.getName().equals("hashCode");
    }

    /** {@code Class.getDeclaredMethods()} as the program wrote the class, sorted. */
    static Method[] declaredMethods(Class<?> c) {
        Method[] all = c.getDeclaredMethods();
        int kept = 0;
        for (Method m : all) {
            if (!addedByRankcheck(m)) all[kept++] = m;
        }
        return sorted(kept == all.length ? all : Arrays.copyOf(all, kept));
    }

    /** {@code Class.getMethods()} with {@code Object.hashCode} where the rewriter's is, sorted. */
    static Method[] methods(Class<?> c) {
        Method[] all = c.getMethods();
        for (int i = 0; i < all.length; i++) {
            if (addedByRankcheck(all[i])) all[i] = OBJECT_HASH_CODE;
        }
        return sorted(all);
    }

    /** {@code members}, sorted in place (the JDK returns a fresh copy on every call). */
    static <T extends Executable> T[] sorted(T[] members) {
        if (members.length > 1) Arrays.sort(members, ORDER);
        return members;
    }
}
