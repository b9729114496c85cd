package shop;

/** A shopping cart that counts its items; adding is not atomic. */
public class Cart {
    private int items;

    public void add() {
        items = items + 1;
    }

    public int items() {
        return items;
    }
}
