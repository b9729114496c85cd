package pool2returnthenread;

import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

/**
 * Greetings rendered into StringBuilders borrowed from a commons-pool2 GenericObjectPool (a
 * borrowed builder is cleared). The bug: {@code render} returns its builder to the pool and
 * only then reads it; another thread may borrow it in between, clear it and write its own
 * greeting, and main finds a garbled one.
 */
public class Main {
    static class Builders extends BasePooledObjectFactory<StringBuilder> {
        @Override
        public StringBuilder create() {
            return new StringBuilder();
        }

        @Override
        public PooledObject<StringBuilder> wrap(StringBuilder builder) {
            return new DefaultPooledObject<>(builder);
        }

        @Override
        public void activateObject(PooledObject<StringBuilder> pooled) {
            pooled.getObject().setLength(0);
        }
    }

    static String render(GenericObjectPool<StringBuilder> pool, String name) throws Exception {
        StringBuilder builder = pool.borrowObject();
        builder.append("Hello, ").append(name);
        pool.returnObject(builder);
        return builder.toString();
    }

    public static void main(String[] args) throws Exception {
        GenericObjectPoolConfig<StringBuilder> config = new GenericObjectPoolConfig<>();
        config.setJmxEnabled(false);
        config.setMaxTotal(2);
        GenericObjectPool<StringBuilder> pool = new GenericObjectPool<>(new Builders(), config);
        String[] greetings = new String[2];
        Thread ann = new Thread(() -> {
            try {
                greetings[0] = render(pool, "ann");
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Thread bob = new Thread(() -> {
            try {
                greetings[1] = render(pool, "bob");
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        ann.start();
        bob.start();
        ann.join();
        bob.join();
        pool.close();
        System.out.println(greetings[0] + " / " + greetings[1]);
        if (!greetings[0].equals("Hello, ann") || !greetings[1].equals("Hello, bob")) {
            throw new IllegalStateException("garbled greeting: " + greetings[0] + " / " + greetings[1]);
        }
    }
}
