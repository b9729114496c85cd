package ledger;

/**
 * LedgerToStringDeadlock fixed: a record becomes text before its ledger's buffer is locked, so
 * no thread holds one buffer's lock while it asks for another's.
 */
public class Main {
    static class Ledger {
        String name;
        StringBuffer lines = new StringBuffer();

        Ledger(String name) {
            this.name = name;
        }

        void write(Object entry) {
            String text = String.valueOf(entry);
            lines.append(text).append('\n');
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
