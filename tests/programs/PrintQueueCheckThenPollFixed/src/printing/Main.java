package printing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
    public static void main(String[] args) throws Exception {
        LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>();
        queue.add("report.pdf");
        queue.add("invoice.pdf");
        AtomicInteger pages = new AtomicInteger();
        ExecutorService printers = Executors.newFixedThreadPool(2);
        List<Future<?>> jobs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            jobs.add(printers.submit(() -> {
                String doc;
                while ((doc = queue.poll()) != null) {
                    pages.addAndGet(doc.length());
                }
            }));
        }
        for (Future<?> job : jobs) {
            job.get();
        }
        printers.shutdown();
        System.out.println("printed " + pages.get() + " pages");
    }
}
