package bufwriter;

/** Counts writers still writing; the checker waits until none is left. */
final class Finish {
    private int writing;

    Finish(int writers) {
        writing = writers;
    }

    synchronized void writerDone() {
        writing--;
        notifyAll();
    }

    synchronized void awaitWriters() throws InterruptedException {
        while (writing > 0) {
            wait();
        }
    }
}
