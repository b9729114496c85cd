import java.nio.ByteBuffer;
import java.nio.channels.Pipe;

/** A thread blocks reading a pipe nobody writes: I/O is never modelled, only the watchdog sees it. */
public class PipeRead {
    public static void main(String[] args) throws Exception {
        Pipe pipe = Pipe.open();
        Thread reader = new Thread(() -> {
            try {
                int n = pipe.source().read(ByteBuffer.allocate(1));
                System.out.println("read " + n);
            } catch (Exception e) {
                System.out.println("reader: " + e);
            }
        }, "reader");
        reader.start();
        reader.join();
    }
}
