package io.onlyonce.spring.autoconfigure;

import java.lang.reflect.Method;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** The largest number of connections a pool hands out, where the pool says (HikariCP, Tomcat, DBCP2). */
public final class PoolSize {

    private PoolSize() {
    }

    public static @Nullable Integer of(DataSource dataSource) {
        for (String getter : new String[] {"getMaximumPoolSize", "getMaxActive", "getMaxTotal"}) {
            try {
                Method method = dataSource.getClass().getMethod(getter);
                Object size = method.invoke(dataSource);
                if (size instanceof Integer value && value > 0) {
                    return value;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // not this kind of pool
            }
        }
        return null;
    }
}
