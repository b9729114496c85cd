package bufwriterfixed;

/**
 * A character buffer that writers append fixed-size records to. An append reserves its room by
 * moving {@code length} on and copies the record in, all under the buffer's lock.
 */
final class Buffer {
    private final char[] data;
    private int length;

    Buffer(int capacity) {
        data = new char[capacity];
    }

    /** The fix: the reservation and the copy are one synchronized step. */
    synchronized void append(String record) {
        int start = length;
        length = start + record.length();
        for (int i = 0; i < record.length(); i++) {
            data[start + i] = record.charAt(i);
        }
    }

    synchronized int length() {
        return length;
    }

    synchronized char at(int i) {
        return data[i];
    }
}
