package io.onlyonce.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** Wraps a data source and counts how often prepared statements whose SQL starts with a prefix are executed. */
final class ExecutionCounter {

    private final AtomicInteger executions = new AtomicInteger();
    private final String sqlPrefix;

    ExecutionCounter(String sqlPrefix) {
        this.sqlPrefix = sqlPrefix;
    }

    int executions() {
        return executions.get();
    }

    DataSource wrap(DataSource target) {
        return proxy(DataSource.class, target, (method, result, args) ->
                method.getName().equals("getConnection") ? wrapConnection((Connection) result) : result);
    }

    private Connection wrapConnection(Connection target) {
        return proxy(Connection.class, target, (method, result, args) ->
                method.getName().equals("prepareStatement") && ((String) args[0]).startsWith(sqlPrefix)
                        ? wrapStatement((PreparedStatement) result)
                        : result);
    }

    private PreparedStatement wrapStatement(PreparedStatement target) {
        return proxy(PreparedStatement.class, target, (method, result, args) -> {
            if (method.getName().startsWith("execute")) {
                executions.incrementAndGet();
            }
            return result;
        });
    }

    @FunctionalInterface
    private interface AfterCall {
        Object apply(Method method, Object result, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, T target, AfterCall after) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, method, args) -> {
            try {
                return after.apply(method, method.invoke(target, args), args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }
}
