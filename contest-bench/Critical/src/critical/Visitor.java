package critical;

/** One of the two threads: enters the room a few times through the door. */
final class Visitor extends Thread {
    private final int me;
    private final Door door;
    private final Room room;
    private final int rounds;

    Visitor(int me, Door door, Room room, int rounds) {
        super("visitor-" + me);
        this.me = me;
        this.door = door;
        this.room = room;
        this.rounds = rounds;
    }

    @Override
    public void run() {
        for (int i = 0; i < rounds; i++) {
            door.enter(me);
            try {
                room.visit(getName());
            } finally {
                door.leave(me); // even after a failure, so that the other thread is not stuck
            }
        }
    }
}
