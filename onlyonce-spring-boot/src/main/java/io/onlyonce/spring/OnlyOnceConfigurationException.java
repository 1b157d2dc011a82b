package io.onlyonce.spring;

/**
 * OnlyOnce refuses to start the application: it could not protect what the application asks it
 * to protect (an {@link Idempotent} method the proxy cannot reach, a store that is missing or has no
 * tables, one-time tokens without shared secrets). Spring Boot reports it as "APPLICATION FAILED TO
 * START" with the {@link #description()} and the {@link #action()} that fixes it, however deep
 * under other beans' creation it was thrown.
 */
public class OnlyOnceConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String description;
    private final String action;

    /**
     * @param description what is wrong, naming the property, bean, method or table
     * @param action what to do about it
     */
    public OnlyOnceConfigurationException(String description, String action) {
        super(description + " " + action);
        this.description = description;
        this.action = action;
    }

    /** What is wrong. */
    public String description() {
        return description;
    }

    /** What to do about it. */
    public String action() {
        return action;
    }
}
