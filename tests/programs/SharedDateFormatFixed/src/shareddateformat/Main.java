package shareddateformat;

import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Log lines stamped by two pool workers, each through its own date format. */
public class Main {
    private static final ThreadLocal<SimpleDateFormat> DAY = ThreadLocal.withInitial(() -> {
        SimpleDateFormat format = new SimpleDateFormat("yyyy-MM-dd");
        format.setTimeZone(TimeZone.getTimeZone("UTC"));
        return format;
    });

    static String stamp(long millis, String text) {
        return DAY.get().format(new Date(millis)) + " " + text;
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        long newYear = 0L;
        long summer = 86_400_000L * 200;
        Future<List<String>> winter = pool.submit(() -> {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 3; i++) lines.add(stamp(newYear, "winter sale " + i));
            return lines;
        });
        Future<List<String>> july = pool.submit(() -> {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 3; i++) lines.add(stamp(summer, "summer sale " + i));
            return lines;
        });
        List<String> log = new ArrayList<>(winter.get());
        log.addAll(july.get());
        pool.shutdown();
        for (String line : log) {
            System.out.println(line);
            boolean ok = line.contains("winter") ? line.startsWith("1970-01-01") : line.startsWith("1970-07-20");
            if (!ok) throw new IllegalStateException("wrong date on log line: " + line);
        }
    }
}
