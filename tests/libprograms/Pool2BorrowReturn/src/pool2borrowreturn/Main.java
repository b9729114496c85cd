package pool2borrowreturn;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;

public class Main {
    static final class Connection {
        private boolean busy;

        String query(String q) {
            if (busy) {
                throw new IllegalStateException("connection used by two threads");
            }
            busy = true;
            String answer = q.toUpperCase();
            busy = false;
            return answer;
        }
    }

    static final class Factory extends BasePooledObjectFactory<Connection> {
        @Override
        public Connection create() {
            return new Connection();
        }

        @Override
        public PooledObject<Connection> wrap(Connection c) {
            return new DefaultPooledObject<>(c);
        }
    }

    static String ask(GenericObjectPool<Connection> pool, String q) throws Exception {
        Connection c = pool.borrowObject();
        try {
            return c.query(q);
        } finally {
            pool.returnObject(c);
        }
    }

    public static void main(String[] args) throws Exception {
        GenericObjectPool<Connection> connections = new GenericObjectPool<>(new Factory());
        connections.setMaxTotal(2);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        Future<String> a = pool.submit(() -> ask(connections, "a"));
        Future<String> b = pool.submit(() -> ask(connections, "b"));
        Future<String> c = pool.submit(() -> ask(connections, "c"));
        String all = a.get() + b.get() + c.get();
        pool.shutdown();
        int created = (int) connections.getCreatedCount();
        connections.close();
        if (!all.equals("ABC") || created > 2) {
            throw new IllegalStateException(all + " with " + created + " connections");
        }
        System.out.println(all + " with " + created + " connection(s)");
    }
}
