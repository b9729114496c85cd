package objectcache;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An object cache under concurrent get/put: a least-recently-used map of bounded size, guarded by
 * its own monitor, in front of an expensive deterministic computation. Four clients each look up
 * a seeded, skewed sequence of keys; on a miss a client computes the value outside the lock and
 * puts it. Every value read is checked against the computation. Hits and misses vary with the
 * interleaving; the checksum of the values read does not (it is a sum over each client's fixed key
 * sequence). Usage: {@code Main LOOKUPS} (per client).
 */
public class Main {
    static final int CLIENTS = 4;
    static final int CAPACITY = 256;
    static final int KEYS = 4096;

    static final class LruCache<K, V> {
        private final LinkedHashMap<K, V> map;

        LruCache(int capacity) {
            map = new LinkedHashMap<>(capacity * 2, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                    return size() > capacity;
                }
            };
        }

        synchronized V get(K key) {
            return map.get(key);
        }

        synchronized void put(K key, V value) {
            map.put(key, value);
        }
    }

    static final class Value {
        final int key;
        final long digest;

        Value(int key, long digest) {
            this.key = key;
            this.digest = digest;
        }
    }

    static final LruCache<Integer, Value> cache = new LruCache<>(CAPACITY);
    static final long[] checksums = new long[CLIENTS];

    public static void main(String[] args) throws InterruptedException {
        int lookups = args.length > 0 ? Integer.parseInt(args[0]) : 80_000;
        Thread[] clients = new Thread[CLIENTS];
        for (int c = 0; c < CLIENTS; c++) {
            final int me = c;
            clients[c] = new Thread(() -> checksums[me] = client(me, lookups), "client-" + c);
            clients[c].start();
        }
        long total = 0;
        for (int c = 0; c < CLIENTS; c++) {
            clients[c].join();
            total += checksums[c];
        }
        System.out.println("lookups=" + (long) lookups * CLIENTS + " checksum=" + total);
    }

    static long client(int id, int lookups) {
        long seed = 1000 + id;
        long sum = 0;
        for (int i = 0; i < lookups; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            // Skewed: the minimum of two uniform draws favours small keys.
            int a = (int) ((seed >>> 20) % KEYS);
            int b = (int) ((seed >>> 40) % KEYS);
            int key = Math.min(a, b);
            Value v = cache.get(key);
            if (v == null) {
                v = new Value(key, compute(key));
                cache.put(key, v);
            }
            if (v.key != key || i % 64 == 0 && v.digest != compute(key)) { // spot-check 1 in 64
                throw new AssertionError("cache returned " + v.key + " for key " + key);
            }
            sum += v.digest;
        }
        return sum;
    }

    /** The "expensive" computation: a few hundred rounds of a 64-bit mixer. */
    static long compute(int key) {
        long h = key * 0x9E3779B97F4A7C15L;
        for (int r = 0; r < 300; r++) {
            h ^= h >>> 31;
            h *= 0xBF58476D1CE4E5B9L;
            h ^= h >>> 29;
        }
        return h;
    }
}
