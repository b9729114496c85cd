package diningphilosophers;

/** A fork on the round table; its monitor is held while a philosopher uses it. */
final class Fork {
    private final int number;
    private int uses;

    Fork(int number) {
        this.number = number;
    }

    int number() {
        return number;
    }

    /** Caller holds this fork's lock. */
    void use() {
        uses++;
    }

    synchronized int uses() {
        return uses;
    }
}
