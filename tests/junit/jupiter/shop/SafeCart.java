package shop;

/** The same cart with its updates under the cart's lock. */
public class SafeCart {
    private int items;

    public synchronized void add() {
        items = items + 1;
    }

    public synchronized int items() {
        return items;
    }
}
