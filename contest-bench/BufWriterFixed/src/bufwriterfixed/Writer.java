package bufwriterfixed;

/** Appends {@code records} records, each {@code size} copies of its own letter. */
final class Writer extends Thread {
    private final Buffer buffer;
    private final Finish finish;
    private final String record;
    private final int records;

    Writer(char letter, int size, int records, Buffer buffer, Finish finish) {
        super("writer-" + letter);
        this.buffer = buffer;
        this.finish = finish;
        this.record = String.valueOf(letter).repeat(size);
        this.records = records;
    }

    @Override
    public void run() {
        for (int i = 0; i < records; i++) {
            buffer.append(record);
        }
        finish.writerDone();
    }
}
