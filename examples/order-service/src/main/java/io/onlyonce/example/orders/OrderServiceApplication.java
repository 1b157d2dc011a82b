package io.onlyonce.example.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An order service as OnlyOnce's users write theirs: refunds and checkouts on
 * {@code @Transactional} service methods made idempotent by a business key, HTTP basic with Spring
 * Security, every answer wrapped into {@code {code,msg,data}}, JdbcClient or MyBatis, and OnlyOnce's
 * store chosen by properties alone.
 */
@SpringBootApplication
public class OrderServiceApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrderServiceApplication.class, args);
    }
}
