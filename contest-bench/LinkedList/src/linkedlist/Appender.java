package linkedlist;

/** Appends the values {@code first, first + 1, …} to the shared list. */
final class Appender extends Thread {
    private final IntList list;
    private final int first;
    private final int count;

    Appender(IntList list, int first, int count) {
        super("appender-" + first);
        this.list = list;
        this.first = first;
        this.count = count;
    }

    @Override
    public void run() {
        for (int i = 0; i < count; i++) {
            list.append(first + i);
        }
    }
}
