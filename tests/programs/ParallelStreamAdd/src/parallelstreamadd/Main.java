package parallelstreamadd;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/** Squares collected from a parallel stream into a plain ArrayList with forEach. */
public class Main {
    public static void main(String[] args) {
        List<Integer> squares = new ArrayList<>();
        IntStream.rangeClosed(1, 8).parallel().map(i -> i * i).forEach(squares::add);
        int sum = squares.stream().mapToInt(Integer::intValue).sum();
        System.out.println(squares.size() + " squares, sum " + sum);
        if (squares.size() != 8 || sum != 204) {
            throw new AssertionError("expected 8 squares summing to 204, got " + squares);
        }
    }
}
