package garagemanagerfixed;

/** Repairs one car: logs the work in the garage's books, then marks the job done. */
final class Mechanic extends Thread {
    private final Garage garage;
    private final Job job;

    Mechanic(int id, Garage garage, Job job) {
        super("mechanic-" + id);
        this.garage = garage;
        this.job = job;
    }

    @Override
    public void run() {
        garage.logWork(job, getName());
        job.markDone();
    }
}
