package criticalfixed;

/** The critical section: counts who is inside and complains when it is more than one. */
final class Room {
    private int inside;
    private int visits;

    void visit(String who) {
        inside = inside + 1;
        if (inside != 1) {
            throw new AssertionError("Critical: BUG " + who + " entered while " + (inside - 1)
                    + " other thread was inside");
        }
        visits = visits + 1;
        inside = inside - 1;
    }

    int visits() {
        return visits;
    }
}
