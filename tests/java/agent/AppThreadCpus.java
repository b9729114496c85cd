import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * Prints, for main and two workers, the CPUs each thread may run on (its Cpus_allowed_list
 * in /proc), one line per thread, in a fixed order.
 */
public class AppThreadCpus {
    static final String[] seen = new String[3];

    static String allowed() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/thread-self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) return line.substring(18).trim();
            }
            return "unknown";
        } catch (Exception e) {
            return "unreadable";
        }
    }

    public static void main(String[] args) throws Exception {
        Thread[] workers = new Thread[2];
        for (int i = 0; i < workers.length; i++) {
            final int me = i + 1;
            workers[i] = new Thread(() -> seen[me] = allowed());
            workers[i].start();
        }
        seen[0] = allowed();
        for (Thread t : workers) t.join();
        for (int i = 0; i < seen.length; i++) System.out.println("thread " + i + ": " + seen[i]);
    }
}
