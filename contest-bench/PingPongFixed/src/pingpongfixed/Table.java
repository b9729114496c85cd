package pingpongfixed;

/**
 * The table the ball lies on. A player picks the ball up (the table is empty meanwhile), hits it
 * and puts it back, all under the table's lock, so no other player ever sees the empty table.
 */
final class Table {
    private Ball ball = new Ball();

    /** The fix: the whole stroke holds the table's lock. */
    synchronized void play(String player) {
        Ball inHand = ball;
        ball = null;
        inHand.hitBy(player);
        ball = inHand;
    }

    synchronized Ball ball() {
        return ball;
    }
}
