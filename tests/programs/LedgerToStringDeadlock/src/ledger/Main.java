package ledger;

/**
 * Two ledgers, each a StringBuffer of lines. A transfer is written to the paying ledger, and its
 * text mentions how long the receiving ledger is.
 *
 * <p>StringBuffer.append(Object) is synchronized and calls toString() with the buffer's lock
 * held, so writing a Transfer locks the paying buffer and then, inside toString, the receiving
 * one. Thread a pays from x to y while thread b pays from y to x: if b locks y's buffer between
 * a's lock of x's buffer and a's call of y.size(), each waits for the other's buffer. One
 * preemption (a, inside toString, before reading to.name) and two threads suffice.
 */
public class Main {
    static class Ledger {
        String name;
        StringBuffer lines = new StringBuffer();

        Ledger(String name) {
            this.name = name;
        }

        void write(Object entry) {
            lines.append(entry).append('\n');
        }

        int size() {
            return lines.length();
        }
    }

    static class Transfer {
        Ledger from;
        Ledger to;
        int amount;

        Transfer(Ledger from, Ledger to, int amount) {
            this.from = from;
            this.to = to;
            this.amount = amount;
        }

        @Override
        public String toString() {
            return from.name + " paid " + amount + " to " + to.name + " (" + to.size() + " chars)";
        }
    }

    public static void main(String[] args) throws Exception {
        Ledger x = new Ledger("x");
        Ledger y = new Ledger("y");
        Thread a = new Thread(() -> x.write(new Transfer(x, y, 10)));
        Thread b = new Thread(() -> y.write(new Transfer(y, x, 20)));
        a.start();
        b.start();
        a.join();
        b.join();
        System.out.print(x.lines);
        System.out.print(y.lines);
    }
}
