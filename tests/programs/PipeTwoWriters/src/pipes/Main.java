package pipes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PipedReader;
import java.io.PipedWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Two producers write records into one pipe; main reads them until the pipe is closed. */
public class Main {
    public static void main(String[] args) throws IOException {
        PipedWriter sink = new PipedWriter();
        BufferedReader source = new BufferedReader(new PipedReader(sink));
        AtomicInteger producing = new AtomicInteger(2);
        Runnable producer = () -> {
            try {
                for (int i = 0; i < 3; i++) {
                    sink.write(Thread.currentThread().getName() + " record " + i + "\n");
                }
                // The last producer to finish closes the pipe.
                if (producing.decrementAndGet() == 0) {
                    sink.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
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
