import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Asks every object of a list for its identity hash three ways — the program's own
 * System.identityHashCode call, the same method called through reflection (the JDK's path),
 * and hashCode() where the class does not override it — many times over, so that compiled code
 * answers too, and throws if two answers differ. Also checks that the execution's own objects
 * (enum constants, instances, threads, and the plain objects and atomics it makes) do not
 * share hashes.
 */
public class IdentityAgreement {
    enum Level { LOW, HIGH }

    static class Job {}

    public static void main(String[] args) throws Exception {
        Method identity = System.class.getMethod("identityHashCode", Object.class);
        Thread worker = new Thread(() -> {});
        worker.start();
        worker.join();
        Runnable task = () -> {};
        Object[] objects = {
            Level.LOW, Level.HIGH, new Job(), new Job(), new Job[2], task, worker,
            Thread.currentThread(), IdentityAgreement.class, Level.class, new Object(),
            new int[3], TimeUnit.SECONDS, Thread.class, new Object(), new int[3],
            new AtomicInteger(), new AtomicInteger(), new String[1]
        };
        int[] first = new int[objects.length];
        for (int round = 0; round < 20_000; round++) {
            for (int i = 0; i < objects.length; i++) {
                Object o = objects[i];
                int asked = System.identityHashCode(o);
                int viaJdk = (Integer) identity.invoke(null, o);
                int hash = o.hashCode();
                if (asked != viaJdk || asked != hash || (round > 0 && asked != first[i])) {
                    throw new AssertionError("object " + i + " (" + o.getClass().getName()
                            + ") in round " + round + ": identityHashCode " + asked
                            + ", through reflection " + viaJdk + ", hashCode " + hash
                            + ", first " + first[i]);
                }
                first[i] = asked;
            }
        }
        int[] made = {10, 14, 16, 17};
        java.util.Set<Integer> distinct = new java.util.HashSet<>();
        for (int i : made) distinct.add(first[i]);
        if (first[0] == first[1] || first[2] == first[3] || first[6] == first[7]
                || distinct.size() != made.length) {
            throw new AssertionError("the execution's own objects share hashes: "
                    + java.util.Arrays.toString(first));
        }
        System.out.println("identity hashes agree");
    }
}
