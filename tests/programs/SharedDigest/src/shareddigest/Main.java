package shareddigest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Upload checksums computed by pool workers through one shared SHA-256 digest. */
public class Main {
    private static final MessageDigest SHA256 = newDigest();

    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String checksum(String content) {
        byte[] sum = SHA256.digest(content.getBytes(StandardCharsets.UTF_8));
        StringBuilder hex = new StringBuilder();
        for (byte b : sum) hex.append(String.format("%02x", b));
        return hex.toString();
    }

    public static void main(String[] args) throws Exception {
        String[] files = {"report.pdf contents", "photo.jpg contents"};
        Map<String, String> expected = new HashMap<>();
        for (String f : files) expected.put(f, checksum(f));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<String>> sums = new ArrayList<>();
        for (String f : files) sums.add(pool.submit(() -> checksum(f)));
        for (int i = 0; i < files.length; i++) {
            String got = sums.get(i).get();
            System.out.println(files[i] + " " + got);
            if (!got.equals(expected.get(files[i]))) {
                throw new IllegalStateException("checksum mismatch for " + files[i] + ": " + got);
            }
        }
        pool.shutdown();
    }
}
