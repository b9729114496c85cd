package initjoin;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class Main {
    static class Catalog {
        static final List<String> ITEMS;

        static {
            List<String> loaded = new ArrayList<>();
            Thread loader = new Thread(() -> {
                for (String raw : new String[] {" Apple", "pear ", " Plum "}) {
                    loaded.add(normalize(raw));
                }
            });
            loader.start();
            try {
                loader.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            ITEMS = Collections.unmodifiableList(loaded);
        }

        static String normalize(String s) {
            return s.trim().toLowerCase();
        }
    }

    public static void main(String[] args) {
        System.out.println("catalog: " + Catalog.ITEMS);
    }
}
