package asyncreport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Two report sections built in the background, merged by main. */
public class Main {
    static List<String> section(String title, int rows) {
        List<String> lines = new ArrayList<>();
        lines.add("== " + title + " ==");
        for (int i = 1; i <= rows; i++) lines.add(title + " row " + i);
        return lines;
    }

    public static void main(String[] args) {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CompletableFuture<List<String>> sales = CompletableFuture.supplyAsync(() -> section("sales", 3), pool);
        CompletableFuture<List<String>> stock = CompletableFuture.supplyAsync(() -> section("stock", 2), pool);
        List<String> report = new ArrayList<>(sales.join());
        report.addAll(stock.join());
        pool.shutdown();
        report.forEach(System.out::println);
        if (report.size() != 7) throw new IllegalStateException("report has " + report.size() + " lines");
    }
}
