package loopiteration;

/**
 * Main makes three cells in one loop and starts a worker; both threads bump every cell once.
 * Cells 0 and 2 are bumped under the cell's own monitor; cell 1, the object made in the loop's
 * second iteration, is bumped with an unsynchronized read and write; main checks that cell 1
 * was bumped twice.
 *
 * <p>A failing interleaving exists: one thread reads cell 1's value and is preempted before its
 * write; the other reads the same value, writes it plus one; the first writes the same. One bump
 * is lost. That takes one preemption, at an access to cell 1, between two threads:
 * (c, v, t) = (1, 1, 2). Between the read and the write of cell 1 there is no other access and
 * no synchronization, so the preemption must happen at an access to cell 1 itself: a search that
 * tracks only the first object made at each allocation site and call stack (loop-iteration
 * bound l = 1) cannot find the bug, one that admits the second (l = 2) can.
 */
public class Main {
    static final class Cell {
        int value;
    }

    public static void main(String[] args) throws InterruptedException {
        Cell[] cells = new Cell[3];
        for (int i = 0; i < cells.length; i++) {
            cells[i] = new Cell();
        }
        Thread worker = new Thread(() -> bumpAll(cells), "worker");
        worker.start();
        bumpAll(cells);
        worker.join();
        if (cells[1].value != 2) {
            throw new AssertionError("lost update on cell 1: value = " + cells[1].value + ", expected 2");
        }
        System.out.println("cells = " + cells[0].value + " " + cells[1].value + " " + cells[2].value);
    }

    static void bumpAll(Cell[] cells) {
        for (int i = 0; i < cells.length; i++) {
            Cell cell = cells[i];
            if (i == 1) {
                int seen = cell.value;
                cell.value = seen + 1;
            } else {
                synchronized (cell) {
                    cell.value++;
                }
            }
        }
    }
}
