package pingpong;

/**
 * The table the ball lies on. A player picks the ball up (the table is empty meanwhile), hits it
 * and puts it back; nothing stops a second player from reaching for the ball in between.
 */
final class Table {
    private Ball ball = new Ball();

    /** The bug: {@code ball} is null while a player holds it, and another player can read it. */
    void play(String player) {
        Ball inHand = ball;
        ball = null;
        inHand.hitBy(player);
        ball = inHand;
    }

    Ball ball() {
        return ball;
    }
}
