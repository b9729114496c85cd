package tsp;

/**
 * Travelling salesman by branch and bound. Cities lie at pseudo-random (seeded) integer points;
 * distances are rounded Euclidean. The search fixes city 0 first; the work items are the choices
 * of the second and third city, which three workers claim from a synchronized queue index. All
 * workers share the best tour length found so far: they read it (volatile) to prune and lower it
 * under a lock. Pruning uses cost so far plus the cheapest edge out of every city still to leave.
 * Which worker finds which tour varies; the optimum printed does not. Usage: {@code Main CITIES}.
 */
public class Main {
    static final int WORKERS = 3;

    static int n;
    static int[][] dist;
    static int[] cheapestOut;
    static int[][] items; // {second city, third city}
    static int nextItem;
    static volatile int best;

    public static void main(String[] args) throws InterruptedException {
        n = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        setUp();
        Thread[] workers = new Thread[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            workers[w] = new Thread(Main::work, "tsp-" + w);
            workers[w].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        System.out.println("cities=" + n + " shortest tour=" + best);
    }

    static void setUp() {
        int[] xs = new int[n];
        int[] ys = new int[n];
        long seed = 2012;
        for (int i = 0; i < n; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            xs[i] = (int) ((seed >>> 33) % 1000);
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            ys[i] = (int) ((seed >>> 33) % 1000);
        }
        dist = new int[n][n];
        cheapestOut = new int[n];
        for (int i = 0; i < n; i++) {
            cheapestOut[i] = Integer.MAX_VALUE;
            for (int j = 0; j < n; j++) {
                long dx = xs[i] - xs[j], dy = ys[i] - ys[j];
                dist[i][j] = (int) Math.round(Math.sqrt(dx * dx + dy * dy));
                if (i != j) {
                    cheapestOut[i] = Math.min(cheapestOut[i], dist[i][j]);
                }
            }
        }
        items = new int[(n - 1) * (n - 2)][];
        int k = 0;
        for (int a = 1; a < n; a++) {
            for (int b = 1; b < n; b++) {
                if (a != b) {
                    items[k++] = new int[] {a, b};
                }
            }
        }
        best = nearestNeighbourTour();
    }

    /** A first tour to prune against: always go to the closest unvisited city. */
    static int nearestNeighbourTour() {
        boolean[] seen = new boolean[n];
        seen[0] = true;
        int at = 0, length = 0;
        for (int step = 1; step < n; step++) {
            int next = -1;
            for (int c = 0; c < n; c++) {
                if (!seen[c] && (next < 0 || dist[at][c] < dist[at][next])) {
                    next = c;
                }
            }
            seen[next] = true;
            length += dist[at][next];
            at = next;
        }
        return length + dist[at][0];
    }

    static synchronized int[] claim() {
        return nextItem < items.length ? items[nextItem++] : null;
    }

    static synchronized void offer(int length) {
        if (length < best) {
            best = length;
        }
    }

    static void work() {
        for (int[] item = claim(); item != null; item = claim()) {
            boolean[] visited = new boolean[n];
            visited[0] = visited[item[0]] = visited[item[1]] = true;
            int cost = dist[0][item[0]] + dist[item[0]][item[1]];
            int bound = 0;
            for (int c = 0; c < n; c++) {
                if (!visited[c]) {
                    bound += cheapestOut[c];
                }
            }
            search(item[1], visited, 3, cost, bound);
        }
    }

    /** {@code remaining}: sum of cheapestOut over the unvisited cities. */
    static void search(int at, boolean[] visited, int depth, int cost, int remaining) {
        if (depth == n) {
            offer(cost + dist[at][0]);
            return;
        }
        if (cost + cheapestOut[at] + remaining >= best) {
            return;
        }
        for (int c = 1; c < n; c++) {
            if (!visited[c]) {
                visited[c] = true;
                search(c, visited, depth + 1, cost + dist[at][c], remaining - cheapestOut[c]);
                visited[c] = false;
            }
        }
    }
}
