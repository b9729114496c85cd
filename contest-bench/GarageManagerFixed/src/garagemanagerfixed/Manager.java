package garagemanagerfixed;

/**
 * Bills every job. The fix: it waits for the job to be done before it takes the garage's lock,
 * so it never blocks inside the critical section the mechanic needs.
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
                job.awaitDone(); // outside the garage's lock
                synchronized (garage) {
                    garage.bill(job);
                }
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException("manager interrupted", e);
        }
    }
}
