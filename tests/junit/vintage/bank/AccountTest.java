package bank;

import static org.junit.Assert.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.Before;
import org.junit.Test;

public class AccountTest {
    private Account account;

    @Before
    public void open() {
        account = new Account();
    }

    private void twice(Runnable deposit) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Thread t = new Thread(deposit);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    @Test
    public void depositsAddUp() throws InterruptedException {
        twice(() -> account.deposit(10));
        assertEquals(20, account.balance());
    }

    @Test
    public void lockedDepositsAddUp() throws InterruptedException {
        twice(() -> account.depositLocked(10));
        assertEquals(20, account.balance());
    }
}
