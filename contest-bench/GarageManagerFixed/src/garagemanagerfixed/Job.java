package garagemanagerfixed;

/** One car's repair: a mechanic marks it done; the manager can wait for that. */
final class Job {
    private final String car;
    private final int hours;
    private boolean done;

    Job(String car, int hours) {
        this.car = car;
        this.hours = hours;
    }

    String car() {
        return car;
    }

    int hours() {
        return hours;
    }

    synchronized void markDone() {
        done = true;
        notifyAll();
    }

    synchronized boolean isDone() {
        return done;
    }

    synchronized void awaitDone() throws InterruptedException {
        while (!done) {
            wait();
        }
    }
}
