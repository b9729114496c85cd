package bank;

import static org.junit.Assert.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.Timeout;

/** JUnit 4 tests with timeouts: JUnit runs each body on a "Time-limited test" thread. */
public class TellerTimeoutTest {
    @Rule
    public Timeout perTest = new Timeout(10, TimeUnit.SECONDS);

    private void both(Runnable deposit) throws InterruptedException {
        Thread morning = new Thread(deposit);
        Thread evening = new Thread(deposit);
        morning.start();
        evening.start();
        morning.join();
        evening.join();
    }

    @Test(timeout = 5000)
    public void shiftDepositsAddUp() throws InterruptedException {
        Account account = new Account();
        both(() -> account.deposit(5));
        assertEquals(10, account.balance());
    }

    @Test
    public void lockedShiftDepositsAddUp() throws InterruptedException {
        Account account = new Account();
        both(() -> account.depositLocked(5));
        assertEquals(10, account.balance());
    }
}
