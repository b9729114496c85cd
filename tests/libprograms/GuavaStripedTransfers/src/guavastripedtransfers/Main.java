package guavastripedtransfers;

import com.google.common.util.concurrent.Striped;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

public class Main {
    static final long[] balances = {100, 100, 100, 100};
    static final Striped<Lock> locks = Striped.lock(4);

    static void transfer(int from, int to, long amount) {
        Iterable<Lock> both = locks.bulkGet(List.of(from, to));
        for (Lock l : both) {
            l.lock();
        }
        try {
            if (balances[from] >= amount) {
                balances[from] -= amount;
                balances[to] += amount;
            }
        } finally {
            for (Lock l : both) {
                l.unlock();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        pool.execute(() -> transfer(0, 1, 30));
        pool.execute(() -> transfer(1, 2, 50));
        pool.execute(() -> transfer(2, 0, 70));
        pool.shutdown();
        while (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
            System.out.println("waiting for transfers");
        }
        long total = Arrays.stream(balances).sum();
        if (total != 400) {
            throw new IllegalStateException("money appeared or vanished: " + Arrays.toString(balances));
        }
        System.out.println(Arrays.toString(balances));
    }
}
