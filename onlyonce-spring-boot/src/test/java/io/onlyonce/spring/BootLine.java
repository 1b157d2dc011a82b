package io.onlyonce.spring;

import java.util.Arrays;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot's own auto-configuration classes by what they configure, on whichever line the test
 * runs (Boot 4 moved them into a module and package per technology), so that one test source
 * serves both lines.
 */
public enum BootLine {
    DATA_SOURCE("org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"),
    DATA_SOURCE_TRANSACTION_MANAGER("org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration"),
    TRANSACTION("org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration"),
    RABBIT("org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
            "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration");

    private final String boot4;
    private final String boot3;

    BootLine(String boot4, String boot3) {
        this.boot4 = boot4;
        this.boot3 = boot3;
    }

    /** This auto-configuration's class on the class path's line. */
    public Class<?> type() {
        ClassLoader loader = BootLine.class.getClassLoader();
        String name = ClassUtils.isPresent(boot4, loader) ? boot4 : boot3;
        return ClassUtils.resolveClassName(name, loader);
    }

    /** {@code ours} and Boot's {@code theirs}, for an {@code ApplicationContextRunner}. */
    public static AutoConfigurations with(Class<?>[] ours, BootLine... theirs) {
        Class<?>[] all = Arrays.copyOf(ours, ours.length + theirs.length);
        for (int i = 0; i < theirs.length; i++) {
            all[ours.length + i] = theirs[i].type();
        }
        return AutoConfigurations.of(all);
    }
}
