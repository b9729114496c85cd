package mathrandomjitter;

/**
 * Two unnamed threads each do a random amount (Math.random()) of local work, then add 1 to a
 * shared counter with a separate read and write. One preemption at {@code done} between the two
 * loses a count: (c, v, t) = (1, 1, 2). Main's message prints each thread's random work size.
 */
public class Main {
    static int done;
    static final int[] work = new int[2];

    static void finish() {
        int seen = done;
        done = seen + 1;
    }

    public static void main(String[] args) throws InterruptedException {
        Thread[] ts = new Thread[2];
        for (int i = 0; i < 2; i++) {
            int k = i;
            ts[i] = new Thread(() -> {
                int units = (int) (Math.random() * 1000);
                long acc = 0;
                for (int u = 0; u < units; u++) {
                    acc += u * 31L;
                }
                work[k] = units;
                if (acc >= 0) {
                    finish();
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (done != 2) {
            throw new IllegalStateException("lost a count after work of " + work[0] + " and "
                    + work[1] + " units: done = " + done);
        }
        System.out.println("done = " + done);
    }
}
