package garagemanager;

/**
 * Bills every job. The bug: it takes the garage's lock first and then, inside that critical
 * section, waits for an unfinished job, while the mechanic needs the garage's lock to log its work
 * before it marks the job done. Blocking inside the critical section deadlocks the two.
 */
final class Manager extends Thread {
    private final Garage garage;
    private final Job[] jobs;

    Manager(Garage garage, Job[] jobs) {
        super("manager");
        this.garage = garage;
        this.jobs = jobs;
    }

    @Override
    public void run() {
        try {
            for (Job job : jobs) {
                synchronized (garage) {
                    if (!job.isDone()) {
                        job.awaitDone(); // blocks while holding the garage's lock
                    }
                    garage.bill(job);
                }
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException("manager interrupted", e);
        }
    }
}
