package sor;

import java.util.Locale;

/**
 * Successive over-relaxation for the Laplace equation on a square grid with fixed boundary
 * values, in red-black order: a red sweep updates the cells with even i + j from their black
 * neighbours, a black sweep the others. Three workers own bands of rows and meet at a barrier
 * (written here with synchronized, wait and notifyAll) after every sweep. Within a sweep no cell
 * reads a cell updated in the same sweep, so the grid after each sweep is the same under every
 * interleaving, and so is the printed checksum. Usage: {@code Main N} (N x N grid).
 */
public class Main {
    static final int WORKERS = 3;
    static final int ITERATIONS = 200;
    static final double OMEGA = 1.5;

    /** A reusable barrier: the last of {@code parties} to arrive opens the current generation. */
    static final class Barrier {
        private final int parties;
        private int waiting;
        private long generation;

        Barrier(int parties) {
            this.parties = parties;
        }

        synchronized void await() {
            long mine = generation;
            if (++waiting == parties) {
                waiting = 0;
                generation++;
                notifyAll();
                return;
            }
            while (generation == mine) { // also survives spurious wake-ups
                try {
                    wait();
                } catch (InterruptedException e) {
                    throw new AssertionError("nobody interrupts in this program", e);
                }
            }
        }
    }

    static double[][] grid;

    public static void main(String[] args) throws InterruptedException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        grid = new double[n][n];
        for (int k = 0; k < n; k++) { // boundary: a hot top edge, a warm left edge
            grid[0][k] = 100;
            grid[k][0] = 50;
        }
        Barrier barrier = new Barrier(WORKERS);
        Thread[] workers = new Thread[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            int from = 1 + (n - 2) * w / WORKERS;
            int to = 1 + (n - 2) * (w + 1) / WORKERS;
            workers[w] = new Thread(() -> relax(from, to, barrier), "sor-" + w);
            workers[w].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        double checksum = 0;
        for (double[] row : grid) {
            for (double v : row) {
                checksum += v;
            }
        }
        System.out.println(String.format(Locale.ROOT, "n=%d iterations=%d checksum=%.9e", n, ITERATIONS, checksum));
    }

    /** Rows [from, to) of the interior. */
    static void relax(int from, int to, Barrier barrier) {
        int n = grid.length;
        for (int it = 0; it < ITERATIONS; it++) {
            for (int colour = 0; colour < 2; colour++) {
                for (int i = from; i < to; i++) {
                    double[] up = grid[i - 1], row = grid[i], down = grid[i + 1];
                    for (int j = 1 + (i + colour + 1) % 2; j < n - 1; j += 2) {
                        double average = 0.25 * (up[j] + down[j] + row[j - 1] + row[j + 1]);
                        row[j] += OMEGA * (average - row[j]);
                    }
                }
                barrier.await();
            }
        }
    }
}
