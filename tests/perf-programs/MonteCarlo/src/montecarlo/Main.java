package montecarlo;

import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Monte-Carlo pricing of an arithmetic-average Asian call option: each path is a geometric
 * Brownian motion sampled at 16 dates. Paths come in blocks; four workers claim blocks from a
 * shared AtomicInteger and store each block's payoff sum in the block's own slot. Every block
 * draws from its own seeded generator, and main adds the slots in block order, so the price does
 * not depend on which worker ran which block. Usage: {@code Main PATHS}.
 */
public class Main {
    static final int WORKERS = 4;
    static final int BLOCK = 5_000;
    static final int DATES = 16;
    static final double SPOT = 100, STRIKE = 100, RATE = 0.05, VOLATILITY = 0.2, YEARS = 1;

    static double[] blockSums;
    static final AtomicInteger nextBlock = new AtomicInteger();

    public static void main(String[] args) throws InterruptedException {
        int paths = args.length > 0 ? Integer.parseInt(args[0]) : 400_000;
        int blocks = (paths + BLOCK - 1) / BLOCK;
        blockSums = new double[blocks];
        Thread[] workers = new Thread[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            workers[w] = new Thread(() -> work(paths, blocks), "pricer-" + w);
            workers[w].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        double sum = 0;
        for (double s : blockSums) {
            sum += s;
        }
        double price = StrictMath.exp(-RATE * YEARS) * sum / paths;
        System.out.println(String.format(Locale.ROOT, "paths=%d price=%.9f", paths, price));
    }

    static void work(int paths, int blocks) {
        for (int b = nextBlock.getAndIncrement(); b < blocks; b = nextBlock.getAndIncrement()) {
            SplittableRandom random = new SplittableRandom(0x5EEDL + b);
            int end = Math.min(paths, (b + 1) * BLOCK);
            double sum = 0;
            for (int p = b * BLOCK; p < end; p++) {
                sum += payoff(random);
            }
            blockSums[b] = sum;
        }
    }

    static double payoff(SplittableRandom random) {
        double dt = YEARS / DATES;
        double drift = (RATE - 0.5 * VOLATILITY * VOLATILITY) * dt;
        double diffusion = VOLATILITY * StrictMath.sqrt(dt);
        double price = SPOT;
        double average = 0;
        for (int d = 0; d < DATES; d++) {
            price *= StrictMath.exp(drift + diffusion * gaussian(random));
            average += price;
        }
        average /= DATES;
        return Math.max(average - STRIKE, 0);
    }

    /** A standard normal variate by the Box-Muller transform. */
    static double gaussian(SplittableRandom random) {
        double u = 1.0 - random.nextDouble(); // in (0, 1]: log stays finite
        double v = random.nextDouble();
        return StrictMath.sqrt(-2 * StrictMath.log(u)) * StrictMath.cos(2 * Math.PI * v);
    }
}
