package criticalfixed;

/**
 * Peterson's entry protocol for two threads (0 and 1): raise your flag, give the other thread
 * the turn, and wait while the other wants in and has the turn. The fields are volatile, so the
 * JVM keeps their accesses in order (sequentially consistent), which the protocol needs.
 */
final class Door {
    private volatile boolean wants0;
    private volatile boolean wants1;
    private volatile int turn;

    void enter(int me) {
        int other = 1 - me;
        setWants(me, true);
        turn = other;
        while (wants(other) && turn == other) {
            Thread.yield(); // busy waiting, but only while the other thread is in or entering
        }
    }

    void leave(int me) {
        setWants(me, false);
    }

    private boolean wants(int who) {
        return who == 0 ? wants0 : wants1;
    }

    private void setWants(int who, boolean value) {
        if (who == 0) {
            wants0 = value;
        } else {
            wants1 = value;
        }
    }
}
