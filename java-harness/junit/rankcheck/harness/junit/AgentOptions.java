package rankcheck.harness.junit;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

/**
 * The options this JVM gave rankcheck's agent ({@code -agentpath:…librankcheck_agent.so=…},
 * with {@code options-file=} read as the agent reads it), so that a {@code @RankcheckTest} in a
 * launcher can tell whether the agent's one session is the one the test asks for.
 */
final class AgentOptions {
    private AgentOptions() {}

    /** The options, or null when this JVM does not run rankcheck's agent. */
    static Map<String, String> ofThisJvm() {
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-agentpath:") || !arg.contains("rankcheck_agent")) continue;
            Map<String, String> options = new HashMap<>();
            int eq = arg.indexOf('=');
            if (eq >= 0) {
                for (String item : arg.substring(eq + 1).split(",")) add(options, item);
            }
            return options;
        }
        return null;
    }

    private static void add(Map<String, String> options, String item) {
        int eq = item.indexOf('=');
        if (eq <= 0) return;
        String key = item.substring(0, eq).trim();
        String value = item.substring(eq + 1).trim();
        if (!key.equals("options-file")) {
            options.put(key, value);
            return;
        }
        try {
            for (String line : Files.readAllLines(Paths.get(value))) {
                if (!line.trim().isEmpty() && !line.trim().startsWith("#")) add(options, line.trim());
            }
        } catch (IOException e) {
            // The agent refuses to start without it; nothing to read here either.
        }
    }
}
