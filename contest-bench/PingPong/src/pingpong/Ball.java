package pingpong;

/** The ball: counts the strokes it received and remembers who played it last. */
final class Ball {
    private int strokes;
    private String lastPlayer = "nobody";

    void hitBy(String player) {
        strokes++;
        lastPlayer = player;
    }

    int strokes() {
        return strokes;
    }

    String lastPlayer() {
        return lastPlayer;
    }
}
