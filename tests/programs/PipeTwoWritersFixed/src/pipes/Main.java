package pipes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PipedReader;
import java.io.PipedWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Two producers hand records to one writer thread, the only thread that writes into the pipe;
 * main reads them until the pipe is closed.
 */
public class Main {
    public static void main(String[] args) throws IOException {
        PipedWriter sink = new PipedWriter();
        BufferedReader source = new BufferedReader(new PipedReader(sink));
        BlockingQueue<String> pending = new LinkedBlockingQueue<>();
        Runnable producer = () -> {
            for (int i = 0; i < 3; i++) {
                pending.add(Thread.currentThread().getName() + " record " + i + "\n");
            }
        };
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < 6; i++) {
                    sink.write(pending.take());
                }
                sink.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        writer.start();
        new Thread(producer).start();
        new Thread(producer).start();
        List<String> records = new ArrayList<>();
        String line;
        while ((line = source.readLine()) != null) {
            records.add(line);
        }
        System.out.println(records.size() + " records");
    }
}
