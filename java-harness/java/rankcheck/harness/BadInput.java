package rankcheck.harness;

/** Bad input to the harness (a missing class, a bad class path): exit status 2, one line. */
public final class BadInput extends Exception {
    private static final long serialVersionUID = 1L;

    public BadInput(String message) {
        super(message);
    }
}
