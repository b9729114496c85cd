package rw;

import java.util.Hashtable;
import java.util.Map;
import java.util.Properties;

/**
 * Calls of synchronized methods of StringBuffer, Hashtable and Properties, which keep the JVM's
 * real monitors: arguments and results of every width, a call that throws inside, a null
 * receiver, an override in a program subclass, calls through an interface (on the table, on the
 * subclass, on Properties and on null: only the first is locked, the others run as written),
 * and calls that lock an argument too.
 */
public class Monitors {
    /** A program subclass: its put overrides Hashtable's, its get is Hashtable's. */
    static class Registry extends Hashtable<String, Integer> {
        @Override
        public synchronized Integer put(String key, Integer value) {
            return super.put(key, value + 1);
        }
    }

    public static void main(String[] args) {
        StringBuffer sb = new StringBuffer();
        sb.append('a').append(1).append(2L).append(3.5f).append(4.25).append(true).append("s");
        sb.append(new char[] {'x', 'y'}, 0, 2).insert(0, 7L).reverse().reverse();
        System.out.println(sb + " " + sb.length() + " " + sb.charAt(1) + " " + sb.indexOf("s"));
        try {
            sb.charAt(99);
        } catch (IndexOutOfBoundsException e) {
            System.out.println("out of bounds, length still " + sb.length());
        }
        synchronized (sb) {
            sb.setLength(3);
        }
        System.out.println(sb.toString());
        StringBuffer none = args.length > 99 ? sb : null;
        try {
            none.append('z');
        } catch (NullPointerException e) {
            System.out.println("null receiver");
        }

        Hashtable<String, Integer> table = new Hashtable<>();
        table.put("a", 1);
        if (!table.containsKey("b")) {
            table.put("b", 2);
        }
        try {
            table.put("c", null);
        } catch (NullPointerException e) {
            System.out.println("null value refused, size " + table.size());
        }
        Map<String, Integer> map = table;
        map.put("d", 4);
        if (!map.containsKey("e")) {
            map.put("e", 5);
        }
        System.out.println(table.get("a") + " " + table.get("d") + " " + table.size());
        System.out.println(map.get("e") + " " + map.size());
        Map<String, Integer> noMap = args.length > 99 ? map : null;
        try {
            noMap.size();
        } catch (NullPointerException e) {
            System.out.println("null map");
        }
        CharSequence chars = sb;
        System.out.println(chars.length() + " " + chars.charAt(0));

        Registry registry = new Registry();
        registry.put("r", 1);
        System.out.println(registry.get("r") + " " + registry.containsKey("r"));
        Map<String, Integer> registryMap = registry;
        registryMap.put("s", 2);
        System.out.println(registryMap.get("s") + " " + registryMap.size());

        Properties props = new Properties();
        props.setProperty("k", "v");
        props.put("n", "m");
        System.out.println(props.getProperty("k") + " " + props.get("n") + " " + props.size());
        Map<Object, Object> propsMap = props;
        propsMap.put("p", "q");
        System.out.println(propsMap.get("p"));
        crossCalls(sb, table);
    }

    /**
     * Calls that take an argument's monitor inside the receiver's: buffers and a table as
     * arguments (locked), the buffer as its own argument, a null argument and a string (not).
     */
    static void crossCalls(StringBuffer sb, Hashtable<String, Integer> table) {
        StringBuffer other = new StringBuffer("other");
        sb.append(other).append((CharSequence) other).append((CharSequence) other, 0, 2);
        sb.append((Object) table).insert(0, (Object) other).insert(1, (CharSequence) other, 0, 1);
        sb.append(sb);
        Object nothing = args(0) > 99 ? sb : null;
        sb.append(nothing).append((Object) "plain");
        Map<String, Integer> copy = new Hashtable<>(table);
        System.out.println(table.equals(copy) + " " + copy.equals(table) + " " + sb.length());
    }

    static int args(int n) {
        return n;
    }
}
