package tags;

/** A short code padded to three characters by two threads; the check-then-append holds the buffer's lock. */
public class Main {
    public static void main(String[] args) throws Exception {
        StringBuffer code = new StringBuffer("ab");
        Runnable pad = () -> {
            synchronized (code) {
                if (code.length() < 3) {
                    code.append('x');
                }
            }
        };
        Thread first = new Thread(pad);
        Thread second = new Thread(pad);
        first.start();
        second.start();
        first.join();
        second.join();
        System.out.println("code: " + code);
        if (code.length() != 3) {
            throw new IllegalStateException("code padded twice: " + code);
        }
    }
}
