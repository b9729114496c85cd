package missing;

import java.util.ArrayList;
import java.util.List;

/** Stands for a library the analysis may not have. */
public class Lib {
    public interface Listener {
        void onEvent();
    }

    private static final List<Listener> LISTENERS = new ArrayList<>();

    public static void register(Listener l) {
        LISTENERS.add(l);
    }

    public static void fire() {
        for (Listener l : LISTENERS) {
            l.onEvent();
        }
    }
}
