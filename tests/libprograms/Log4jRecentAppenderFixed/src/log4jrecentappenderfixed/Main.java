package log4jrecentappenderfixed;

import java.io.Serializable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;

public class Main {
    /** Keeps the last messages for the status page. */
    static final class RecentAppender extends AbstractAppender {
        final String[] recent = new String[16];
        int count;

        RecentAppender() {
            super("recent", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public synchronized void append(LogEvent event) {
            recent[count % recent.length] = event.getMessage().getFormattedMessage();
            count++;
        }
    }

    public static void main(String[] args) throws Exception {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        RecentAppender recent = new RecentAppender();
        recent.start();
        config.addAppender(recent);
        config.getRootLogger().addAppender(recent, Level.INFO, null);
        config.getRootLogger().setLevel(Level.INFO);
        context.updateLoggers();
        Logger log = LogManager.getLogger("orders");

        ExecutorService pool = Executors.newFixedThreadPool(2);
        CompletableFuture<Void> a = CompletableFuture.runAsync(() -> log.info("order a1 shipped"), pool);
        CompletableFuture<Void> b = CompletableFuture.runAsync(() -> log.info("order b7 shipped"), pool);
        CompletableFuture.allOf(a, b).join();
        pool.shutdown();
        if (recent.count != 2 || recent.recent[1] == null) {
            throw new IllegalStateException("the status page lost a message: count " + recent.count
                    + ", recent " + recent.recent[0] + " / " + recent.recent[1]);
        }
        System.out.println("recent: " + recent.recent[0] + " / " + recent.recent[1]);
    }
}
