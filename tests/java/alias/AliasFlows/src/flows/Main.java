package flows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

public class Main {
    static final Map<String, Box> REGISTRY = new HashMap<>();
    static Box[] slots = new Box[3];
    static int hits;

    interface Shape {
        int area();

        default int twice() {
            return area() * 2 + hits;
        }
    }

    static class Box implements Comparable<Box>, Shape {
        int w;
        Box next;
        Object payload;

        Box(int w) {
            this.w = w;
        }

        public int compareTo(Box o) {
            hits++;
            return Integer.compare(w, o.w);
        }

        public int area() {
            return w * w;
        }

        @Override
        public String toString() {
            return "Box" + w + (next == null ? "" : "->" + next.w);
        }

        @Override
        public int hashCode() {
            return w;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Box && ((Box) o).w == w;
        }
    }

    static class Failure extends RuntimeException {
        final Box culprit;

        Failure(Box culprit) {
            this.culprit = culprit;
        }
    }

    static class Worker extends Thread {
        final Box target;
        final AtomicReference<Box> out;

        Worker(Box target, AtomicReference<Box> out) {
            this.target = target;
            this.out = out;
        }

        @Override
        public void run() {
            target.w += 1;
            Box made = new Box(target.w);
            out.set(made);
        }
    }

    static Box make(int w) {
        return new Box(w);
    }

    static void check(Box b) {
        if (b.w > 100) {
            throw new Failure(b);
        }
    }

    public static void main(String[] args) throws Exception {
        // Call-backs from the library: compareTo during sort, toString during concatenation,
        // hashCode/equals in a map, a comparator lambda, forEach with a capturing lambda.
        List<Box> boxes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            boxes.add(make(4 - i));
        }
        Collections.sort(boxes);
        boxes.sort((a, b) -> b.w - a.w);
        int[] sum = new int[1];
        boxes.forEach(b -> sum[0] += b.w);
        Box first = boxes.get(0);
        first.next = boxes.get(1);
        REGISTRY.put("first", first);
        System.out.println("first " + first + " sum " + sum[0] + " twice " + first.twice());

        // Method references, suppliers and functions.
        Supplier<Box> maker = () -> new Box(9);
        Function<Integer, Box> ctor = Box::new;
        Box nine = maker.get();
        Box ten = ctor.apply(10);
        nine.payload = ten;
        Function<Box, Integer> area = Box::area;
        System.out.println("areas " + area.apply(nine) + " " + ((Box) nine.payload).area());

        // Arrays: store, arraycopy, clone.
        slots[0] = nine;
        Box[] copy = new Box[3];
        System.arraycopy(slots, 0, copy, 0, 3);
        Box[] cloned = copy.clone();
        cloned[1] = ten;
        System.out.println("copy " + copy[0].w + " clone " + cloned[1].w + " " + Arrays.toString(cloned));

        // Exceptions carrying objects.
        Box big = new Box(1000);
        try {
            check(big);
        } catch (Failure f) {
            f.culprit.w = 5;
        }

        // Threads: a Thread subclass writing through an atomic, an executor task.
        AtomicReference<Box> result = new AtomicReference<>();
        Worker worker = new Worker(first, result);
        worker.start();
        worker.join();
        Box fromWorker = result.get();
        fromWorker.w += 1;

        ExecutorService pool = Executors.newFixedThreadPool(2);
        Map<Integer, Box> cache = new ConcurrentHashMap<>();
        Future<Box> f = pool.submit(() -> {
            Box b = new Box(7);
            cache.put(b.w, b);
            return b;
        });
        Box seven = f.get();
        seven.next = cache.get(7);
        pool.shutdown();

        Box looked = REGISTRY.get("first");
        looked.next.w += seven.next.w;
        System.out.println("done " + looked + " " + fromWorker.w + " " + hits);
    }
}
