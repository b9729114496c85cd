package awaitterminationchecked;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    public static void main(String[] args) throws Exception {
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        pool.execute(done::incrementAndGet);
        pool.execute(done::incrementAndGet);
        pool.shutdown();
        if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the pool did not finish within a minute: "
                    + done.get() + " of 2 tasks done");
        }
        System.out.println(done.get() + " tasks done");
    }
}
