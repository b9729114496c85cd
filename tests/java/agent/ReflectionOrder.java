import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A handler registry filled by reflection, the way plugin and event code often is: the first
 * method whose name matches wins. HotSpot returns methods in an order that changes from one
 * JVM run to the next, so such a loop stops after a different number of steps in another JVM;
 * under rankcheck the program sees one order. Prints what it saw, and whether each array came
 * sorted by name (then by signature), also through a method reference, and that the class
 * declares no {@code hashCode} (it inherits {@code Object}'s).
 */
public class ReflectionOrder {
    static class Handlers {
        Handlers() {}
        Handlers(int level) {}
        Handlers(String name) {}
        public void onStop() {}
        public void zeta() {}
        public void onStart() {}
        public void audit(int code) {}
        public void audit(String code) {}
        public void midway() {}
        void onPause() {}
    }

    public static void main(String[] args) throws Exception {
        String firstHandler = null;
        for (Method m : Handlers.class.getDeclaredMethods()) {
            if (m.getName().startsWith("on")) {
                firstHandler = m.getName();
                break;
            }
        }
        System.out.println("first handler " + firstHandler);
        System.out.println("declared methods " + names(Handlers.class.getDeclaredMethods()) + " "
                + verdict(Handlers.class.getDeclaredMethods()));
        System.out.println("public methods " + verdict(Handlers.class.getMethods()));
        for (Method m : Handlers.class.getMethods()) {
            if (m.getName().equals("hashCode")) {
                System.out.println("hashCode declared by " + m.getDeclaringClass().getName());
            }
        }
        System.out.println("constructors " + verdict(Handlers.class.getDeclaredConstructors()));
        Function<Class<?>, Method[]> viaReference = Class::getMethods;
        System.out.println("through a reference " + verdict(viaReference.apply(Thread.class)));
        Supplier<Constructor<?>[]> publicOnes = Thread.class::getConstructors;
        System.out.println("public constructors " + verdict(publicOnes.get()));
    }

    static String names(Method[] methods) {
        List<String> names = new ArrayList<>();
        for (Method m : methods) names.add(m.getName());
        return String.join(",", names);
    }

    static String verdict(java.lang.reflect.Executable[] members) {
        for (int i = 1; i < members.length; i++) {
            java.lang.reflect.Executable a = members[i - 1], b = members[i];
            int byName = a.getName().compareTo(b.getName());
            if (byName > 0 || (byName == 0 && a.toString().compareTo(b.toString()) > 0)) {
                return "unsorted";
            }
        }
        return "sorted";
    }
}
