package managerfixed;

/**
 * Hands out numbered blocks and takes them back. Free blocks are kept on a stack
 * ({@code freeBlocks[0 .. freeCount)}); each block is marked allocated or free. Allocation and
 * release both hold the manager's lock; allocation waits while no block is free.
 */
final class BlockManager {
    private final int[] freeBlocks;
    private final boolean[] allocated;
    private int freeCount;

    BlockManager(int blocks) {
        freeBlocks = new int[blocks];
        allocated = new boolean[blocks];
        for (int b = 0; b < blocks; b++) {
            freeBlocks[b] = b;
        }
        freeCount = blocks;
    }

    synchronized int allocate() throws InterruptedException {
        while (freeCount == 0) {
            wait();
        }
        freeCount--;
        int block = freeBlocks[freeCount];
        if (allocated[block]) {
            throw new AssertionError("Manager: BUG block " + block + " handed out twice");
        }
        allocated[block] = true;
        return block;
    }

    /** The fix: the push onto the free stack holds the lock, like allocation. */
    synchronized void release(int block) {
        allocated[block] = false;
        int top = freeCount;
        freeBlocks[top] = block;
        freeCount = top + 1;
        notifyAll();
    }

    synchronized int freeCount() {
        return freeCount;
    }

    int blocks() {
        return freeBlocks.length;
    }
}
