package reports;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

public class Main {
    static List<String> templates;
    static final List<String> rendered = new ArrayList<>();

    public static void main(String[] args) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        pool.submit(() -> {
            templates = List.of("header", "body", "footer");
        });
        pool.submit(() -> {
            for (String t : templates) {
                synchronized (rendered) {
                    rendered.add("<" + t + ">");
                }
            }
        });
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        System.out.println("rendered " + rendered.size() + " templates");
        if (rendered.size() != 3) {
            System.out.println("report incomplete");
            System.exit(1);
        }
    }
}
