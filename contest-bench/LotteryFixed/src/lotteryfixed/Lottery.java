package lotteryfixed;

import java.util.Random;

/**
 * A lottery: tickets are sold while it is open; the draw closes it, picks a winner among the sold
 * tickets and pays out the whole pool. Selling and the draw both hold the lottery's lock, so a
 * sale happens entirely before or entirely after the draw.
 */
final class Lottery {
    static final int PRICE = 5;

    private final String[] tickets;
    private boolean open = true;
    private int sold;
    private int pool;
    private int paidOut;
    private int inDraw = -1;
    private String winner;

    Lottery(int maxTickets) {
        tickets = new String[maxTickets];
    }

    /** The fix: the check of {@code open} and the sale are one synchronized step. */
    synchronized boolean buy(String buyer) {
        if (!open) {
            return false;
        }
        int n = sold;
        tickets[n] = buyer;
        sold = n + 1;
        pool = pool + PRICE;
        return true;
    }

    synchronized void draw(long seed) {
        open = false;
        inDraw = sold;
        if (inDraw > 0) {
            winner = tickets[new Random(seed).nextInt(inDraw)];
            paidOut = pool;
            pool = 0;
        }
    }

    /** What is wrong with the books after everyone is done, or null. */
    synchronized String audit() {
        if (inDraw < 0) {
            return "no draw took place";
        }
        if (sold != inDraw) {
            return (sold - inDraw) + " ticket(s) sold after the draw closed";
        }
        if (paidOut + pool != sold * PRICE) {
            return "paid " + paidOut + " and kept " + pool + " for " + sold + " tickets";
        }
        if (pool != 0) {
            return pool + " left in the pool after the draw";
        }
        return null;
    }

    synchronized String summary() {
        return sold + " tickets, winner " + winner + ", paid " + paidOut;
    }
}
