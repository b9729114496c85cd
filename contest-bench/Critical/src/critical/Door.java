package critical;

/**
 * A home-made entry protocol for two threads (0 and 1): wait while the other one wants in, then
 * say that you want in. Testing the other's flag and raising your own are separate steps, so both
 * threads can pass the test before either raises its flag.
 */
final class Door {
    private final boolean[] wants = new boolean[2];

    /** The bug: test, then set; another thread can pass the test in between. */
    void enter(int me) {
        int other = 1 - me;
        while (wants[other]) {
            Thread.yield(); // busy waiting
        }
        wants[me] = true;
    }

    void leave(int me) {
        wants[me] = false;
    }
}
