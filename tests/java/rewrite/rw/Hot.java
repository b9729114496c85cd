package rw;

/**
 * Hot synchronized methods and blocks: once instrumented (synchronized methods desugared into
 * explicit monitors) HotSpot must still compile them, which it refuses to do when it cannot
 * pair every monitorexit with its monitorenter.
 */
public class Hot {
    int n;
    long total;
    static int calls;

    synchronized void inc() {
        n++;
    }

    synchronized long add(long x) {
        if (x < 0) throw new IllegalArgumentException("negative");
        total += x;
        return total;
    }

    static synchronized int next(int x) {
        calls++;
        return x + 1;
    }

    static synchronized void maybeFail(int i) {
        if (i == -1) throw new IllegalStateException();
    }

    /** A return inside a try range: the user's handler must not cover it past monitorexit. */
    synchronized long early(int i) {
        for (int k = 0; ; k++) {
            try {
                if (k >= 2) return i + k;
                total += k;
            } catch (IllegalStateException e) {
                return -1;
            }
        }
    }

    public static void main(String[] args) {
        Hot h = new Hot();
        int s = 0;
        for (int i = 0; i < 200_000; i++) {
            h.inc();
            h.add(i);
            s = next(s);
            maybeFail(i);
            s += (int) h.early(i);
            synchronized (h) {
                s ^= i;
            }
        }
        System.out.println(h.n + " " + h.total + " " + s + " " + calls);
    }
}
