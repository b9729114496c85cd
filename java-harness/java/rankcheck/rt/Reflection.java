package rankcheck.rt;

import java.lang.reflect.Executable;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The methods and constructors of a class in one order in every JVM: sorted by name, then by
 * their full signature ({@code toString()}: modifiers, return type, declaring class and
 * parameter types, which tells every member of one array apart). HotSpot hands them out in
 * the order their name symbols lie in memory, which changes from one JVM run to the next; a
 * program that stops at the first match, or registers handlers in that order, would otherwise
 * take other steps in a fresh JVM than in the run a schedule was recorded in.
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

    /** {@code members}, sorted in place (the JDK returns a fresh copy on every call). */
    static <T extends Executable> T[] sorted(T[] members) {
        if (members.length > 1) Arrays.sort(members, ORDER);
        return members;
    }
}
