package shop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Every order placed since the class was loaded. */
public final class Orders {
    private static final List<String> PLACED = Collections.synchronizedList(new ArrayList<>());

    private Orders() {}

    public static void place(String id) {
        PLACED.add(id);
    }

    public static int placed() {
        return PLACED.size();
    }
}
