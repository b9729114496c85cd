/**
 * Two threads touch a class whose static initializer calls a method with scheduling points: a
 * thread preempted there holds the JVM's class-initialization lock, and the other one blocks in
 * the JVM where rankcheck cannot see it. Either the initializer runs through, or the watchdog
 * must end the execution with a clear report; never a hang.
 */
public class ClinitCall {
    static int shared = 1;

    static final class Holder {
        static final int VALUE = compute();

        static int compute() {
            int s = 0;
            for (int i = 0; i < 5; i++) s += shared;
            return s;
        }
    }

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> System.out.println("a " + Holder.VALUE));
        Thread b = new Thread(() -> System.out.println("b " + Holder.VALUE));
        a.start();
        b.start();
        a.join();
        b.join();
    }
}
