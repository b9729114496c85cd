package methodref;

import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

public class Main {
    static class Counter {
        int total;

        synchronized void add() {
            total = total + 1;
            Consumer<Object> wake = Object::notifyAll;
            wake.accept(this);
        }

        synchronized int awaitTotal(int n) throws InterruptedException {
            while (total < n) {
                wait();
            }
            return total;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Counter counter = new Counter();
        List<Thread> workers = Stream.generate(() -> new Thread(counter::add))
                .limit(3)
                .collect(Collectors.toList());
        workers.forEach(Thread::start);
        int total = counter.awaitTotal(3);
        for (Thread t : workers) {
            t.join();
        }
        if (total != 3) {
            throw new AssertionError("lost update: total " + total);
        }
        System.out.println("total " + total);
    }
}
