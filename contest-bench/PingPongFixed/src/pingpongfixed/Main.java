package pingpongfixed;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * PingPongFixed: players take strokes at one shared table; afterwards the ball must be on the table
 * and must have received every stroke.
 *
 * <p>Fixed variant: a stroke holds the table's lock, so no player sees the ball missing.
 *
 * <p>Usage: {@code Main OUTPUT little|average|lot} (players/strokes 2/1, 5/10, 17/100).
 */
public final class Main {
    public static void main(String[] args) throws IOException, InterruptedException {
        String output = args.length > 0 ? args[0] : "output.txt";
        String level = args.length > 1 ? args[1] : "little";
        int players;
        int strokes;
        switch (level) {
            case "little" -> { players = 2; strokes = 1; }
            case "average" -> { players = 5; strokes = 10; }
            case "lot" -> { players = 17; strokes = 100; }
            default -> throw new IllegalArgumentException("concurrency level must be little, average or lot");
        }
        Table table = new Table();
        Player[] team = new Player[players];
        for (int i = 0; i < players; i++) {
            team[i] = new Player((i % 2 == 0 ? "ping-" : "pong-") + i, table, strokes);
            team[i].start();
        }
        for (Player p : team) {
            p.join();
        }
        Ball ball = table.ball();
        int expected = players * strokes;
        String problem = ball == null ? "the ball is gone"
                : ball.strokes() != expected ? ball.strokes() + " strokes counted instead of " + expected : null;
        String verdict = problem == null
                ? "PingPong: OK " + expected + " strokes, last by " + ball.lastPlayer()
                : "PingPong: BUG " + problem;
        try (PrintWriter out = new PrintWriter(output)) {
            out.println(verdict);
        }
        System.out.println(verdict);
        if (problem != null) {
            throw new AssertionError(verdict);
        }
    }
}
