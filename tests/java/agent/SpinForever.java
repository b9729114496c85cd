/** A thread spins on a flag nobody sets: only the step bound ends it. */
public class SpinForever {
    static boolean done;

    public static void main(String[] args) throws Exception {
        Thread spinner = new Thread(() -> {
            long n = 0;
            while (!done) n++;
            System.out.println(n);
        });
        spinner.start();
        spinner.join();
    }
}
