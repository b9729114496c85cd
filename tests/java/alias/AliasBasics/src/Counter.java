import java.util.ArrayList;
import java.util.List;

/** Two threads bump a shared counter object; a thread-local list stays unshared. */
public class Counter {
    static Counter shared;
    int value;
    int[] history = new int[4];

    void bump() {
        value = value + 1;
        history[value % 4] = value;
    }

    public static void main(String[] args) throws Exception {
        shared = new Counter();
        Counter local = new Counter();
        local.bump();
        List<Counter> list = new ArrayList<>();
        list.add(local);
        Thread t1 = new Thread(() -> shared.bump());
        Runnable r = new Runnable() {
            public void run() {
                shared.bump();
            }
        };
        Thread t2 = new Thread(r);
        t1.start();
        t2.start();
        t1.join();
        t2.join();
        System.out.println("value " + shared.value + " " + list.get(0).value);
    }
}
