package poolsharedencoder;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;

public class Main {
    /** Costly to make, so pooled; not thread-safe: it keeps its output buffer. */
    static final class Encoder {
        private StringBuilder out = new StringBuilder();

        String encode(String text) {
            out.setLength(0);
            for (int i = 0; i < text.length(); i++) {
                out.append((char) (text.charAt(i) + 1));
            }
            return out.toString();
        }
    }

    static final class Factory extends BasePooledObjectFactory<Encoder> {
        @Override
        public Encoder create() {
            return new Encoder();
        }

        @Override
        public PooledObject<Encoder> wrap(Encoder e) {
            return new DefaultPooledObject<>(e);
        }
    }

    static Encoder batchEncoder;

    static CompletableFuture<String> encode(GenericObjectPool<Encoder> pool, String text,
            ExecutorService workers) throws Exception {
        if (batchEncoder == null) {
            batchEncoder = pool.borrowObject(); // one per batch, "borrowing is costly"
        }
        Encoder e = batchEncoder;
        return CompletableFuture.supplyAsync(() -> e.encode(text), workers);
    }

    public static void main(String[] args) throws Exception {
        GenericObjectPool<Encoder> encoders = new GenericObjectPool<>(new Factory());
        ExecutorService workers = Executors.newFixedThreadPool(2);
        CompletableFuture<String> a = encode(encoders, "abc", workers);
        CompletableFuture<String> b = encode(encoders, "xyz", workers);
        String first = a.get();
        String second = b.get();
        workers.shutdown();
        encoders.close();
        if (!first.equals("bcd") || !second.equals("yz{")) {
            throw new IllegalStateException("garbled output: " + first + " " + second);
        }
        System.out.println(first + " " + second);
    }
}
