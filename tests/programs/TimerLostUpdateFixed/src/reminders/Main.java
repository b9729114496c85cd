package reminders;

import java.util.ArrayList;
import java.util.List;
import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.CountDownLatch;

/** Counts reminders sent by a java.util.Timer and by the main thread, under the class lock. */
public class Main {
    static int sent = 0;

    static synchronized void send(String who) {
        int before = sent;
        sent = before + 1;
    }

    public static void main(String[] args) throws Exception {
        Timer timer = new Timer();
        CountDownLatch done = new CountDownLatch(2);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            String name = "reminder-" + i;
            names.add(name);
            timer.schedule(new TimerTask() {
                @Override
                public void run() {
                    send(name);
                    done.countDown();
                }
            }, 0);
        }
        send("main");
        done.await();
        timer.cancel();
        System.out.println("sent " + sent + " reminders for " + names);
        if (sent != 3) {
            throw new IllegalStateException("lost a reminder: sent = " + sent);
        }
    }
}
