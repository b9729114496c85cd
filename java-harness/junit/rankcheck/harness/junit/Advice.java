package rankcheck.harness.junit;

import java.lang.reflect.Method;

/** What a {@code @RankcheckTest} says when it cannot be explored where it runs: how to run it. */
final class Advice {
    private Advice() {}

    /** {@code CLASS#METHOD}, with the parameter types when there are any. */
    static String test(Class<?> cls, Method method) {
        StringBuilder s = new StringBuilder(cls.getName()).append('#').append(method.getName());
        if (method.getParameterCount() > 0) {
            s.append('(');
            Class<?>[] types = method.getParameterTypes();
            for (int i = 0; i < types.length; i++) {
                if (i > 0) s.append(", ");
                s.append(types[i].getName());
            }
            s.append(')');
        }
        return s.toString();
    }

    static String notHere(String test, String why) {
        return "@RankcheckTest " + test + " is explored by rankcheck, which cannot run here: " + why + ".\n"
                + "Run it with\n"
                + "  rankcheck junit --cp CLASSPATH --select '" + test + "'\n"
                + "or start this JVM under rankcheck's agent:\n"
                + "  java -agentpath:$(rankcheck rt --agent)=plain=off,instrument=load,keep-going=on,executions=1000000000 \\\n"
                + "       -cp $(rankcheck rt --jar):$(rankcheck rt --junit):CLASSPATH LAUNCHER ...\n"
                + "(README, \"JUnit\").";
    }
}
