package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/** PERMISSIVE: with Redis gone, a protected request runs unprotected and is counted; the data layer decides. */
@TestPropertySource(properties = "onlyonce.key.store-failure-policy=permissive")
class RedisOutagePermissiveIT extends AbstractRedisOutageIT {

    @Test
    void whenRedisDiesAProtectedPostRunsAndIsCountedAsAStoreError() throws Exception {
        assertThat(order().statusCode()).isEqualTo(201);
        double errors = storeErrors();

        killRedis();
        HttpResponse<String> executed = order();

        assertThat(executed.statusCode()).as(executed.body()).isEqualTo(201);
        assertThat(executed.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(orders.executions("orders")).isEqualTo(2);
        assertThat(storeErrors()).isEqualTo(errors + 1);
    }
}
