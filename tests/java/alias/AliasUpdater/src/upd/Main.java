package upd;

import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

public class Main {
    static class Box {
        int w;

        Box(int w) {
            this.w = w;
        }
    }

    /** A field only the library writes, through an updater (reflection underneath). */
    static class Holder {
        volatile Box value;
    }

    static final AtomicReferenceFieldUpdater<Holder, Box> UPDATER =
            AtomicReferenceFieldUpdater.newUpdater(Holder.class, Box.class, "value");

    public static void main(String[] args) throws Exception {
        Holder holder = new Holder();
        UPDATER.set(holder, new Box(11));
        Thread reader = new Thread(() -> holder.value.w += 1);
        reader.start();
        reader.join();
        UPDATER.compareAndSet(holder, holder.value, new Box(12));
        System.out.println(holder.value.w);
    }
}
