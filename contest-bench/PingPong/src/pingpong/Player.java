package pingpong;

/** Plays a fixed number of strokes at the shared table. */
final class Player extends Thread {
    private final Table table;
    private final int strokes;

    Player(String name, Table table, int strokes) {
        super(name);
        this.table = table;
        this.strokes = strokes;
    }

    @Override
    public void run() {
        for (int i = 0; i < strokes; i++) {
            table.play(getName());
        }
    }
}
