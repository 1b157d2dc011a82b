package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Wraps a data source and records the isolation level of its connections as the server sees it:
 * when a statement is prepared, and when the connection is closed, that is handed back to the pool;
 * and counts the calls that change it.
 */
final class IsolationProbe {

    private final Set<Integer> atStatements = ConcurrentHashMap.newKeySet();
    private final Set<Integer> atClose = ConcurrentHashMap.newKeySet();
    private final AtomicInteger changes = new AtomicInteger();

    /** Asserts that every statement was prepared at {@code level}. */
    void assertStatementsRanAt(int level) {
        assertThat(new TreeSet<>(atStatements)).as("levels the statements ran at").containsExactly(level);
    }

    /**
     * Asserts that every statement was prepared at the pool's level or at {@code lowered}: a
     * statement runs at the pool's level until a conflict lowers its operation's connection.
     */
    void assertStatementsRanWithin(int pool, int lowered) {
        assertThat(new TreeSet<>(atStatements)).as("levels the statements ran at").isSubsetOf(pool, lowered);
    }

    /** Asserts that every connection was handed back at {@code level}. */
    void assertHandedBackAt(int level) {
        assertThat(new TreeSet<>(atClose)).as("levels the connections were handed back at").containsExactly(level);
    }

    /** How often {@link Connection#setTransactionIsolation} was called. */
    int changes() {
        return changes.get();
    }

    /** {@code target}, its connections observed by this probe. */
    DataSource wrap(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (self, method, args) -> {
                    Object result = invoke(target, method, args);
                    return method.getName().equals("getConnection") ? wrapConnection((Connection) result) : result;
                });
    }

    private Connection wrapConnection(Connection target) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (self, method, args) -> {
                    switch (method.getName()) {
                        case "prepareStatement" -> atStatements.add(serverLevel(target));
                        case "close" -> atClose.add(serverLevel(target));
                        case "setTransactionIsolation" -> changes.incrementAndGet();
                        default -> { }
                    }
                    return invoke(target, method, args);
                });
    }

    /** The level the driver reports, asked past the pool's proxy, which may answer from memory. */
    private static int serverLevel(Connection connection) throws SQLException {
        return connection.unwrap(Connection.class).getTransactionIsolation();
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
