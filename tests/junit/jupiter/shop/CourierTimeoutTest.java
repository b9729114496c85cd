package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tests whose bodies JUnit runs on a thread of its own (assertTimeoutPreemptively, a
 * separate-thread @Timeout): two racy, one correct.
 */
class CourierTimeoutTest {
    static class Route {
        int stops;

        void addStop() {
            stops++;
        }
    }

    @Test
    void stopsAddedWithinTheDeadlineAreCounted() {
        Route route = new Route();
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            Thread north = new Thread(route::addStop);
            Thread south = new Thread(route::addStop);
            north.start();
            south.start();
            north.join();
            south.join();
        });
        assertEquals(2, route.stops);
    }

    @Test
    void atomicStopsAddedWithinTheDeadlineAreCounted() {
        AtomicInteger stops = new AtomicInteger();
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            Thread north = new Thread(stops::incrementAndGet);
            Thread south = new Thread(stops::incrementAndGet);
            north.start();
            south.start();
            north.join();
            south.join();
        });
        assertEquals(2, stops.get());
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void stopsAddedOnTheTimeoutThreadAreCounted() throws InterruptedException {
        Route route = new Route();
        Thread north = new Thread(route::addStop);
        Thread south = new Thread(route::addStop);
        north.start();
        south.start();
        north.join();
        south.join();
        assertEquals(2, route.stops);
    }
}
