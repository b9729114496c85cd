package millionlines;

/** An unnamed worker prints a million short lines; main waits for it. */
public class Main {
    public static void main(String[] args) throws InterruptedException {
        Thread printer = new Thread(() -> {
            for (int i = 0; i < 1_000_000; i++) {
                System.out.println("line " + i);
            }
        });
        printer.start();
        printer.join();
        System.out.println("printed 1000000 lines");
    }
}
