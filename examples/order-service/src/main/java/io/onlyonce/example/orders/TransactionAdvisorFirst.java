package io.onlyonce.example.orders;

import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.core.Ordered;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * Profile {@code tx-first}: the transaction advisor ordered before every other advice, as many
 * applications declare it so that their own aspects run inside the transaction.
 */
@Configuration(proxyBeanMethods = false)
@Profile("tx-first")
@EnableTransactionManagement(order = Ordered.HIGHEST_PRECEDENCE)
class TransactionAdvisorFirst {
}
