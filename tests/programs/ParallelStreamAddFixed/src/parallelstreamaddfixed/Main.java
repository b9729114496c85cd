package parallelstreamaddfixed;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** ParallelStreamAdd collecting with a collector instead of a shared list. */
public class Main {
    public static void main(String[] args) {
        List<Integer> squares = IntStream.rangeClosed(1, 8).parallel().map(i -> i * i)
                .boxed().collect(Collectors.toList());
        int sum = squares.stream().mapToInt(Integer::intValue).sum();
        System.out.println(squares.size() + " squares, sum " + sum);
        if (squares.size() != 8 || sum != 204) {
            throw new AssertionError("expected 8 squares summing to 204, got " + squares);
        }
    }
}
