package transcript;

import java.util.ArrayList;
import java.util.List;

/** Two chat sessions; when they are linked, each copies the other's transcript into its own. */
public class Main {
    static class Session {
        final String user;
        final StringBuffer transcript = new StringBuffer();

        Session(String user) {
            this.user = user;
            transcript.append("[").append(user).append("] joined\n");
        }

        void importFrom(Session other) {
            // A copy taken under the other buffer's lock alone, then appended under ours.
            transcript.append(other.transcript.toString());
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Session alice = new Session("alice");
        Session bob = new Session("bob");
        List<Thread> workers = new ArrayList<>();
        workers.add(new Thread(() -> alice.importFrom(bob)));
        workers.add(new Thread(() -> bob.importFrom(alice)));
        workers.forEach(Thread::start);
        for (Thread w : workers) {
            w.join();
        }
        System.out.println(alice.transcript.length() + " + " + bob.transcript.length() + " characters");
    }
}
