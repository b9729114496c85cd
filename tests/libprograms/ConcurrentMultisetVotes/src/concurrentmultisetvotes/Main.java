package concurrentmultisetvotes;

import com.google.common.collect.ConcurrentHashMultiset;
import com.google.common.collect.Multiset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public class Main {
    public static void main(String[] args) {
        Multiset<String> votes = ConcurrentHashMultiset.create();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        String[][] ballots = {{"red", "blue"}, {"red", "green"}, {"blue", "red"}};
        CompletableFuture<?>[] counted = new CompletableFuture<?>[ballots.length];
        for (int i = 0; i < ballots.length; i++) {
            String[] ballot = ballots[i];
            counted[i] = CompletableFuture.runAsync(() -> {
                for (String colour : ballot) {
                    votes.add(colour);
                }
            }, pool);
        }
        CompletableFuture.allOf(counted).join();
        pool.shutdown();
        if (votes.count("red") != 3 || votes.count("blue") != 2 || votes.size() != 6) {
            throw new IllegalStateException("miscounted: " + votes);
        }
        System.out.println(votes.count("red") + " red, " + votes.count("blue") + " blue");
    }
}
