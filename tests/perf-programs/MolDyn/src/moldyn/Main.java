package moldyn;

import java.util.Locale;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * Molecular dynamics: particles on a perturbed cubic lattice in a periodic box interact through a
 * truncated Lennard-Jones potential and move by velocity Verlet for a fixed number of steps.
 * Four workers own contiguous ranges of particles; each step has three phases (move, forces,
 * kick) separated by a CyclicBarrier. A worker writes only its own particles, and every force is
 * summed over all other particles in index order, so the result does not depend on the
 * interleaving. Usage: {@code Main SIDE} (SIDE^3 particles).
 */
public class Main {
    static final int WORKERS = 4;
    static final int STEPS = 30;
    static final double DT = 0.002;
    static final double SPACING = 1.2;
    static final double CUTOFF2 = 2.5 * 2.5;

    static int n;
    static double box;
    static double[] x, y, z, vx, vy, vz, fx, fy, fz, potential;

    public static void main(String[] args) throws InterruptedException {
        int side = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        setUp(side);
        CyclicBarrier barrier = new CyclicBarrier(WORKERS);
        Thread[] workers = new Thread[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            int from = n * w / WORKERS;
            int to = n * (w + 1) / WORKERS;
            workers[w] = new Thread(() -> simulate(from, to, barrier), "md-" + w);
            workers[w].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        double kinetic = 0;
        double pot = 0;
        for (int i = 0; i < n; i++) {
            kinetic += 0.5 * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
            pot += 0.5 * potential[i];
        }
        System.out.println(String.format(Locale.ROOT, "particles=%d steps=%d energy=%.9f", n, STEPS, kinetic + pot));
    }

    static void setUp(int side) {
        n = side * side * side;
        box = side * SPACING;
        x = new double[n]; y = new double[n]; z = new double[n];
        vx = new double[n]; vy = new double[n]; vz = new double[n];
        fx = new double[n]; fy = new double[n]; fz = new double[n];
        potential = new double[n];
        long seed = 12345;
        int i = 0;
        for (int a = 0; a < side; a++) {
            for (int b = 0; b < side; b++) {
                for (int c = 0; c < side; c++, i++) {
                    x[i] = (a + 0.5) * SPACING;
                    y[i] = (b + 0.5) * SPACING;
                    z[i] = (c + 0.5) * SPACING;
                    seed = next(seed);
                    vx[i] = unit(seed);
                    seed = next(seed);
                    vy[i] = unit(seed);
                    seed = next(seed);
                    vz[i] = unit(seed);
                }
            }
        }
        // No drift of the whole system.
        double mx = 0, my = 0, mz = 0;
        for (i = 0; i < n; i++) {
            mx += vx[i]; my += vy[i]; mz += vz[i];
        }
        for (i = 0; i < n; i++) {
            vx[i] -= mx / n; vy[i] -= my / n; vz[i] -= mz / n;
        }
        computeForces(0, n);
    }

    static long next(long s) {
        return s * 6364136223846793005L + 1442695040888963407L;
    }

    /** A value in [-0.5, 0.5) from the top bits of an LCG state. */
    static double unit(long s) {
        return ((s >>> 11) * 0x1.0p-53) - 0.5;
    }

    static void simulate(int from, int to, CyclicBarrier barrier) {
        for (int step = 0; step < STEPS; step++) {
            for (int i = from; i < to; i++) { // half kick, then drift
                vx[i] += 0.5 * DT * fx[i]; vy[i] += 0.5 * DT * fy[i]; vz[i] += 0.5 * DT * fz[i];
                x[i] = wrap(x[i] + DT * vx[i]); y[i] = wrap(y[i] + DT * vy[i]); z[i] = wrap(z[i] + DT * vz[i]);
            }
            await(barrier);
            computeForces(from, to);
            await(barrier);
            for (int i = from; i < to; i++) { // second half kick
                vx[i] += 0.5 * DT * fx[i]; vy[i] += 0.5 * DT * fy[i]; vz[i] += 0.5 * DT * fz[i];
            }
            await(barrier);
        }
    }

    static double wrap(double p) {
        return p < 0 ? p + box : p >= box ? p - box : p;
    }

    static double nearest(double d) {
        return d > box / 2 ? d - box : d < -box / 2 ? d + box : d;
    }

    /** Forces on particles [from, to) from every other particle, in index order. */
    static void computeForces(int from, int to) {
        for (int i = from; i < to; i++) {
            double sx = 0, sy = 0, sz = 0, pe = 0;
            for (int j = 0; j < n; j++) {
                if (j == i) {
                    continue;
                }
                double dx = nearest(x[i] - x[j]);
                double dy = nearest(y[i] - y[j]);
                double dz = nearest(z[i] - z[j]);
                double r2 = dx * dx + dy * dy + dz * dz;
                if (r2 < CUTOFF2) {
                    double inv2 = 1.0 / r2;
                    double inv6 = inv2 * inv2 * inv2;
                    double magnitude = 24 * inv2 * inv6 * (2 * inv6 - 1);
                    sx += magnitude * dx; sy += magnitude * dy; sz += magnitude * dz;
                    pe += 4 * inv6 * (inv6 - 1);
                }
            }
            fx[i] = sx; fy[i] = sy; fz[i] = sz;
            potential[i] = pe;
        }
    }

    static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (InterruptedException | BrokenBarrierException e) {
            throw new AssertionError("nobody interrupts or breaks the barrier", e);
        }
    }
}
