/** A worker loops for ever on locals only: no scheduling point, only the wall-clock bound ends it. */
public class HotLoop {
    public static void main(String[] args) throws Exception {
        Thread hot = new Thread(() -> {
            long x = 0;
            while (true) {
                x = x * 31 + 7;
                if (x == 42) System.out.println(x);
            }
        }, "hot");
        hot.start();
        hot.join();
    }
}
