import java.io.FileWriter;

/** Like LostUpdate, but reports through its output and a file instead of an assertion. */
public class RacyPrint {
    static int count;

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(RacyPrint::increment);
        Thread b = new Thread(RacyPrint::increment);
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.println("count=" + count);
        if (args.length > 0) {
            try (FileWriter w = new FileWriter(args[0])) {
                w.write("final count " + count + "\n");
            }
        }
    }

    static void increment() {
        int c = count;
        count = c + 1;
    }
}
