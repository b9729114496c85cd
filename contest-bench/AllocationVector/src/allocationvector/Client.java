package allocationvector;

/**
 * A client that allocates a few blocks one by one (find a free block, check it is free, mark it
 * allocated), uses them, and frees them all.
 */
final class Client extends Thread {
    private final BlockVector vector;
    private final int id;
    private final int wanted;
    private int allocated;
    private String failure;

    Client(BlockVector vector, int id, int wanted) {
        super("client-" + id);
        this.vector = vector;
        this.id = id;
        this.wanted = wanted;
    }

    @Override
    public void run() {
        try {
            allocateAndFree();
        } catch (AssertionError e) {
            failure = e.getMessage();
            throw e;
        }
    }

    /** What went wrong in this client, or null (read after join). */
    String failure() {
        return failure;
    }

    private void allocateAndFree() {
        for (int i = 0; i < wanted; i++) {
            int b = vector.findFreeBlock();
            if (b < 0) {
                break;
            }
            if (!vector.isBlockFree(b)) {
                throw new AssertionError("AllocationVector: BUG block " + b + " found free by " + getName()
                        + " was allocated before it could take it");
            }
            vector.markBlockAllocated(b, id);
            allocated++;
        }
        int freed = vector.freeAllBlocks(id);
        if (freed != allocated) {
            throw new AssertionError("AllocationVector: BUG " + getName() + " allocated " + allocated
                    + " blocks but freed " + freed);
        }
    }
}
