import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Prints the iteration order of a HashSet of plain objects: it follows identity hash codes the
 * JDK computes itself (Object.hashCode), which differ between the executions of one JVM unless
 * rankcheck pins them.
 */
public class IdentityOrder {
    public static void main(String[] args) throws Exception {
        Thread t = new Thread(() -> {
            Object[] objs = new Object[8];
            Map<Object, Integer> index = new IdentityHashMap<>();
            Set<Object> set = new HashSet<>();
            for (int i = 0; i < objs.length; i++) {
                objs[i] = new Object();
                index.put(objs[i], i);
                set.add(objs[i]);
            }
            StringBuilder order = new StringBuilder();
            for (Object o : set) order.append(index.get(o));
            System.out.println("order " + order);
            System.out.println("pinned hash " + System.identityHashCode(objs[0]));
        });
        t.start();
        t.join();
    }
}
