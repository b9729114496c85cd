import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Gives three sessions random UUIDs, keeps them in a HashMap and prints the map in its own
 * order (which follows the ids), the way a server lists its sessions.
 */
public class SessionIds {
    public static void main(String[] args) {
        Map<UUID, String> sessions = new HashMap<>();
        for (String user : new String[] {"ana", "bo", "cy"}) {
            sessions.put(UUID.randomUUID(), user);
        }
        StringBuilder line = new StringBuilder("sessions");
        for (Map.Entry<UUID, String> e : sessions.entrySet()) {
            line.append(' ').append(e.getValue()).append('=').append(e.getKey());
        }
        System.out.println(line);
    }
}
