package identityhashsetclaimfixed;

import java.util.HashSet;
import java.util.Set;

/**
 * Three jobs in a HashSet of objects without hashCode (so the iteration order follows their
 * identity hash codes). Two unnamed workers each walk the set and claim the first job whose
 * {@code claimed} flag is false. The buggy walk checks and sets the flag without a lock: both
 * workers can claim the same job. (c, v, t) = (1, 1, 2). Main prints the job twice claimed with
 * Object.toString.
 */
public class Main {
    static class Job {
        boolean claimed;
        int claims;
    }

    static final Set<Job> jobs = new HashSet<>();

    static void claimOne() {
        synchronized (jobs) { for (Job j : jobs) {
            if (!j.claimed) {
                j.claimed = true;
                j.claims++;
                return;
            }
        } }
    }

    public static void main(String[] args) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            jobs.add(new Job());
        }
        Thread a = new Thread(Main::claimOne);
        Thread b = new Thread(Main::claimOne);
        a.start();
        b.start();
        a.join();
        b.join();
        for (Job j : jobs) {
            if (j.claims > 1) {
                throw new IllegalStateException("job " + j + " claimed " + j.claims + " times");
            }
        }
        System.out.println("every job claimed at most once");
    }
}
