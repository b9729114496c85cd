package bufwriter;

/**
 * A character buffer that writers append fixed-size records to. An append first reserves its
 * room by moving {@code length} on, then copies the record in; the reservation is a plain read
 * and write of {@code length}, with no lock.
 */
final class Buffer {
    private final char[] data;
    private int length;

    Buffer(int capacity) {
        data = new char[capacity];
    }

    /** The bug: two writers can read the same {@code length} and reserve the same room. */
    void append(String record) {
        int start = length;
        length = start + record.length();
        for (int i = 0; i < record.length(); i++) {
            data[start + i] = record.charAt(i);
        }
    }

    int length() {
        return length;
    }

    char at(int i) {
        return data[i];
    }
}
