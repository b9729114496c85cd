package jacksonlazymapper;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class Main {
    public static final class Order {
        public String id;
        public int qty;
    }

    static ObjectMapper mapper;

    static ObjectMapper mapper() {
        if (mapper == null) {
            mapper = new ObjectMapper();
            mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        }
        return mapper;
    }

    static Order parse(String json) throws Exception {
        return mapper().readValue(json, Order.class);
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        // Clients add fields the service does not know yet; they must be ignored.
        Future<Order> a = pool.submit(() -> parse("{\"id\":\"a1\",\"qty\":2,\"note\":\"gift\"}"));
        Future<Order> b = pool.submit(() -> parse("{\"id\":\"b7\",\"qty\":5,\"note\":\"\"}"));
        int total = a.get().qty + b.get().qty;
        pool.shutdown();
        System.out.println("total quantity " + total);
    }
}
