package waitonworker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Map<String, Integer> lengths = new ConcurrentHashMap<>();
        List<Thread> workers = new ArrayList<>();
        for (String word : new String[] {"alpha", "beta"}) {
            Thread t = new Thread(() -> lengths.put(word, word.length()));
            workers.add(t);
            t.start();
        }
        for (Thread t : workers) {
            synchronized (t) {
                t.wait();
            }
        }
        System.out.println(lengths);
    }
}
