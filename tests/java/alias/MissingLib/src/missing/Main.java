package missing;

public class Main {
    static int events;

    static class Box implements Lib.Listener {
        int x;

        public void onEvent() {
            x++;
            events++;
        }
    }

    public static void main(String[] args) {
        Box kept = new Box();
        Box handed = new Box();
        Lib.register(handed);
        Lib.fire();
        kept.x = 1;
        System.out.println(kept.x + handed.x + events);
    }
}
