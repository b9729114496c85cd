package nioreadthenfail;

import java.nio.file.Files;
import java.nio.file.Path;

public class Main {
    public static void main(String[] args) throws Exception {
        Path settings = Files.createTempFile("settings", ".txt");
        Files.writeString(settings, "limit=3");
        String text = Files.readString(settings);
        Files.delete(settings);
        throw new IllegalStateException("always fails after reading " + text);
    }
}
