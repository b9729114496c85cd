package methodref;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

public class Main {
    static class Counter {
        int total;

        void add() {
            total = total + 1;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Counter counter = new Counter();
        List<Thread> workers = Stream.generate(() -> new Thread(counter::add))
                .limit(3)
                .collect(Collectors.toList());
        workers.forEach(Thread::start);
        for (Thread t : workers) {
            t.join();
        }
        if (counter.total != 3) {
            throw new AssertionError("lost update: total " + counter.total);
        }
        System.out.println("total " + counter.total);
    }
}
