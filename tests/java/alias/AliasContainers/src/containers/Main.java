package containers;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Each cell goes into one container and is read back in a method of its own, so that the
 * analysis' answer for the read ({@code cell.v++}) can be checked to name only that cell. One
 * more cell is handed to code the default analysis does not read ({@code ThreadLocal}), so it
 * escapes: reads that lose track of their container would name it too.
 */
public class Main {
    static final class Cell {
        int v;

        @Override
        public String toString() {
            return "cell " + v;
        }
    }

    static int fromList(List<Cell> list) {
        Cell c = list.get(0);
        c.v++;
        return c.v;
    }

    static int fromMap(Map<String, Cell> map) {
        Cell c = map.get("k");
        c.v++;
        return c.v;
    }

    static int fromRef(AtomicReference<Cell> ref) {
        Cell c = ref.get();
        c.v++;
        return c.v;
    }

    static int fromQueue(BlockingQueue<Cell> queue) throws InterruptedException {
        Cell c = queue.take();
        c.v++;
        return c.v;
    }

    static int fromTask(Future<Cell> future) throws Exception {
        Cell c = future.get();
        c.v++;
        return c.v;
    }

    public static void main(String[] args) throws Exception {
        Cell inList = new Cell();
        Cell inMap = new Cell();
        Cell inRef = new Cell();
        Cell inQueue = new Cell();
        Cell inTask = new Cell();
        Cell escaped = new Cell();
        ThreadLocal<Cell> local = new ThreadLocal<>();
        local.set(escaped);

        List<Cell> list = new ArrayList<>();
        list.add(inList);
        Map<String, Cell> map = new ConcurrentHashMap<>();
        map.put("k", inMap);
        AtomicReference<Cell> ref = new AtomicReference<>();
        ref.set(inRef);
        ref.compareAndSet(inRef, inRef);
        BlockingQueue<Cell> queue = new LinkedBlockingQueue<>();
        Thread producer = new Thread(() -> queue.add(inQueue));
        producer.start();
        ExecutorService pool = Executors.newFixedThreadPool(1);
        Future<Cell> future = pool.submit(() -> inTask);

        int total = fromList(list) + fromMap(map) + fromRef(ref) + fromQueue(queue) + fromTask(future);
        producer.join();
        pool.shutdown();
        System.out.println(local.get() + " " + total);
    }
}
