package managerfixed;

/** Takes a block, uses it, gives it back; a few times. */
final class Worker extends Thread {
    private final BlockManager manager;
    private final int rounds;
    private long work;

    Worker(int id, BlockManager manager, int rounds) {
        super("worker-" + id);
        this.manager = manager;
        this.rounds = rounds;
    }

    @Override
    public void run() {
        try {
            for (int i = 0; i < rounds; i++) {
                int block = manager.allocate();
                work += block + 1;
                manager.release(block);
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(getName() + " interrupted", e);
        }
    }

    long work() {
        return work;
    }
}
