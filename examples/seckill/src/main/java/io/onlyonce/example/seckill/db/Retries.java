package io.onlyonce.example.seckill.db;

import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import java.util.function.Supplier;
import org.springframework.dao.ConcurrencyFailureException;

/**
 * Runs a transaction again when the database gave up on it for a transient reason (a deadlock
 * victim, a lock wait timeout, H2's concurrent-update error): each attempt is a fresh transaction,
 * so it must be called from outside the transactional method. After the last attempt: 409
 * {@code order-conflict}, which the client may retry (the starter stores no 409).
 */
public final class Retries {

    static final int ATTEMPTS = 3;

    private Retries() {
    }

    public static <T> T transientFailures(Supplier<T> transaction) {
        for (int attempt = 1; ; attempt++) {
            try {
                return transaction.get();
            } catch (ConcurrencyFailureException e) {
                if (attempt >= ATTEMPTS) {
                    throw new ApiException(AppProblem.ORDER_CONFLICT);
                }
            }
        }
    }
}
