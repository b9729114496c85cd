package rw;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

/** Single-threaded shapes the rewriter must keep working: every print is deterministic. */
public class Basics {
    static long staticLong = 1L << 40;
    static double staticDouble = 2.5;
    static int counter;
    long longField = -7L;
    double doubleField = 0.125;
    int intField;
    String name;

    enum Color { RED, GREEN, BLUE }

    Basics(String name) {
        this.name = name;
    }

    Basics(int a, boolean flag) {
        this(flag ? "yes" + a : (a > 3 ? "big" : "small"));
        intField = a;
    }

    /** Inner class: javac stores this$0 before calling super(). */
    class Inner {
        final int k;

        Inner(int k) {
            this.k = k + intField;
        }

        int twice() {
            return 2 * k + (int) longField;
        }
    }

    static class Base {
        final String tag;

        Base(String tag) {
            this.tag = tag;
        }
    }

    static class Derived extends Base {
        Derived(int x) {
            super(x > 0 ? new StringBuilder("pos").append(x).toString() : "neg");
        }
    }

    static int loops(int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            if (i % 3 == 0) continue;
            int j = 0;
            while (j < i) {
                sum += j;
                j += 2;
            }
            do {
                sum ^= j;
                j--;
            } while (j > 0);
        }
        return sum;
    }

    static String switches(int x, String s, Color c) {
        String a;
        switch (x) {
            case 0: a = "zero"; break;
            case 1: a = "one"; break;
            case 2: a = "two"; break;
            case 3: a = "three"; break;
            default: a = "many";
        }
        String b;
        switch (x * 1000) {
            case -5000: b = "neg"; break;
            case 1000: b = "k"; break;
            case 1000000: b = "m"; break;
            default: b = "?";
        }
        String d;
        switch (s) {
            case "alpha": d = "A"; break;
            case "beta": d = "B"; break;
            default: d = "-";
        }
        String e;
        switch (c) {
            case RED: e = "r"; break;
            case GREEN: e = "g"; break;
            default: e = "b";
        }
        return a + b + d + e;
    }

    static int tryFinally(int x) {
        int r = 0;
        try {
            try {
                if (x == 0) throw new IllegalStateException("zero");
                r = 100 / (x - 1);
            } catch (ArithmeticException ex) {
                r = -1;
            } finally {
                r += 10;
                counter++;
            }
        } catch (IllegalStateException ex) {
            r = -100;
        }
        return r;
    }

    static String arrays() {
        boolean[] z = new boolean[3];
        byte[] b = new byte[3];
        char[] c = new char[3];
        short[] s = new short[3];
        int[] i = new int[3];
        long[] l = new long[3];
        float[] f = new float[3];
        double[] d = new double[3];
        Object[] o = new Object[3];
        String[][] m = new String[2][3];
        int[][][] cube = new int[2][2][2];
        for (int k = 0; k < 3; k++) {
            z[k] = k % 2 == 0;
            b[k] = (byte) (k * 100);
            c[k] = (char) ('a' + k);
            s[k] = (short) (k * 1000);
            i[k] = k * k;
            l[k] = (long) k << 33;
            f[k] = k / 4f;
            d[k] = k / 8.0;
            o[k] = k % 2 == 0 ? "even" : Integer.valueOf(k);
            m[k % 2][k] = "m" + k;
            cube[k % 2][1][k % 2] += k;
        }
        l[1]++;
        d[2] *= 3;
        i[0] += i[2];
        b[2] >>= 1;
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < 3; k++) {
            sb.append(z[k]).append(b[k]).append(c[k]).append(s[k]).append(i[k]).append(l[k])
                    .append(f[k]).append(d[k]).append(o[k]).append(m[k % 2][k]).append(',');
        }
        sb.append(cube[1][1][1]).append(cube[0][1][0]);
        return sb.toString();
    }

    void fields() {
        longField += 3;
        doubleField *= 4;
        staticLong -= longField;
        staticDouble /= doubleField;
        intField++;
        counter += intField;
    }

    static String lambdas() {
        int base = 5;
        IntUnaryOperator add = v -> v + base;
        Supplier<List<String>> mk = ArrayList::new;
        List<String> list = mk.get();
        for (int k = 0; k < 3; k++) list.add("x" + add.applyAsInt(k));
        Runnable r = new Runnable() {
            @Override
            public void run() {
                counter += 1000;
            }
        };
        r.run();
        return list.toString();
    }

    public static void main(String[] args) {
        System.out.println("loops " + loops(40));
        for (int x = -5; x < 5; x++) {
            Color c = Color.values()[(x + 9) % 3];
            System.out.println("switch " + switches(x, x % 2 == 0 ? "alpha" : "beta", c));
        }
        for (int x = 0; x < 4; x++) System.out.println("try " + tryFinally(x));
        System.out.println("arrays " + arrays());
        Basics b = new Basics(4, false);
        Basics b2 = new Basics(2, true);
        b.fields();
        b2.fields();
        System.out.println("fields " + b.longField + " " + b.doubleField + " " + staticLong + " "
                + staticDouble + " " + b.name + " " + b2.name + " " + counter);
        Basics.Inner in = b.new Inner(3);
        System.out.println("inner " + in.twice());
        System.out.println("derived " + new Derived(3).tag + " " + new Derived(-1).tag);
        System.out.println("lambdas " + lambdas() + " " + counter);
        Random r = new Random();
        System.out.println("random " + r.nextInt(1));
        Object o = new Object();
        System.out.println("hash " + (System.identityHashCode(o) == o.hashCode()));
        long t0 = System.nanoTime();
        System.out.println("time " + (System.nanoTime() >= t0) + " " + (System.currentTimeMillis() > 0));
    }
}
