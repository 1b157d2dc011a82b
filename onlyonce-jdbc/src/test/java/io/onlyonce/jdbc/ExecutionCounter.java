package io.onlyonce.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Wraps a data source and counts how often prepared statements whose SQL starts with a prefix are
 * executed, optionally running a check before each execution.
 */
final class ExecutionCounter {

    /** Runs before a counted execution. */
    @FunctionalInterface
    interface BeforeExecution {
        /** @param earlier how many counted executions came before this one */
        void run(int earlier) throws Exception;
    }

    private final AtomicInteger executions = new AtomicInteger();
    private final String sqlPrefix;
    private final BeforeExecution before;

    ExecutionCounter(String sqlPrefix) {
        this(sqlPrefix, earlier -> { });
    }

    ExecutionCounter(String sqlPrefix, BeforeExecution before) {
        this.sqlPrefix = sqlPrefix;
        this.before = before;
    }

    int executions() {
        return executions.get();
    }

    DataSource wrap(DataSource target) {
        return proxy(DataSource.class, target, null, (method, result, args) ->
                method.getName().equals("getConnection") ? wrapConnection((Connection) result) : result);
    }

    private Connection wrapConnection(Connection target) {
        return proxy(Connection.class, target, null, (method, result, args) ->
                method.getName().equals("prepareStatement") && ((String) args[0]).startsWith(sqlPrefix)
                        ? wrapStatement((PreparedStatement) result)
                        : result);
    }

    private PreparedStatement wrapStatement(PreparedStatement target) {
        return proxy(PreparedStatement.class, target, method -> {
            if (method.getName().startsWith("execute")) {
                before.run(executions.getAndIncrement());
            }
        }, (method, result, args) -> result);
    }

    @FunctionalInterface
    private interface BeforeCall {
        void apply(Method method) throws Exception;
    }

    @FunctionalInterface
    private interface AfterCall {
        Object apply(Method method, Object result, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, T target, BeforeCall beforeCall, AfterCall after) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, method, args) -> {
            if (beforeCall != null) {
                beforeCall.apply(method);
            }
            try {
                return after.apply(method, method.invoke(target, args), args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }
}
