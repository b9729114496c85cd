package allocationvectorfixed;

/**
 * A vector of storage blocks, each free (owner 0) or allocated to a numbered client. The
 * operations are single steps with no lock: finding a free block and marking it allocated are
 * two separate calls, so two clients can find the same block.
 */
final class BlockVector {
    static final int FREE = 0;

    private final int[] owner;

    BlockVector(int blocks) {
        owner = new int[blocks];
    }

    /** The fix: find a free block and give it to {@code client} atomically; -1 when all are taken. */
    synchronized int allocate(int client) {
        int b = findFreeBlock();
        if (b >= 0) {
            owner[b] = client;
        }
        return b;
    }

    /** First free block, or -1 when all are taken. */
    synchronized int findFreeBlock() {
        for (int b = 0; b < owner.length; b++) {
            if (owner[b] == FREE) {
                return b;
            }
        }
        return -1;
    }

    synchronized boolean isBlockFree(int block) {
        return owner[block] == FREE;
    }

    synchronized int ownerOf(int block) {
        return owner[block];
    }

    /** Frees every block of {@code client}; returns how many. */
    synchronized int freeAllBlocks(int client) {
        int freed = 0;
        for (int b = 0; b < owner.length; b++) {
            if (owner[b] == client) {
                owner[b] = FREE;
                freed++;
            }
        }
        return freed;
    }

    int size() {
        return owner.length;
    }
}
