package shop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A plain JUnit 5 test: the reviews are summed while a late review arrives on another thread. */
class ReviewsTest {
    @Test
    void averageWhileAReviewArrives() throws Exception {
        List<Integer> stars = new ArrayList<>(List.of(5, 4, 3));
        Thread late = new Thread(() -> stars.add(1));
        late.start();
        int sum = 0;
        for (int s : stars) {
            sum += s;
        }
        late.join();
        assertTrue(sum >= 12);
    }
}
