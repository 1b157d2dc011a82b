package io.onlyonce.spring.method;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Makes the completion of a record follow the Spring transaction the protected work ran in: a record
 * is completed only once its work is durable. When a transaction is active on this thread as an
 * {@code @Idempotent} method returns, its record is completed after that transaction commits, and
 * released as a failure when it rolls back or its commit fails; without one it is completed at
 * once. Which advice is outer does not change this: OnlyOnce's advice runs innermost, so a
 * transaction declared on the same method, on a caller, or opened by a
 * {@code TransactionTemplate} around the call is the one it follows.
 *
 * <p>Works with every {@code PlatformTransactionManager} that synchronises (JDBC, JPA, JTA); does
 * nothing when {@code spring-tx} is not on the classpath.
 */
public final class TransactionCompletion {

    private static final Logger log = LoggerFactory.getLogger(TransactionCompletion.class);
    private static final boolean PRESENT = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager",
            TransactionCompletion.class.getClassLoader());

    /** Set while this class's callbacks run, after a transaction ended but before its resources are unbound. */
    private static final ThreadLocal<Boolean> COMPLETING = new ThreadLocal<>();

    private TransactionCompletion() {
    }

    /**
     * Whether a Spring transaction with synchronisation is active on this thread, and is not the
     * one whose completion callbacks are running now.
     */
    public static boolean active() {
        return PRESENT && !completing() && Synchronizations.active();
    }

    /** Whether this thread runs a completion callback of this class (its transaction has ended). */
    public static boolean completing() {
        return COMPLETING.get() != null;
    }

    /**
     * Runs {@code onCommit} once the active transaction committed, or {@code onRollback} once it
     * rolled back, its commit failed or its outcome is unknown; runs {@code onCommit} at once when
     * no transaction is {@linkplain #active() active}. The callbacks run on this thread, after the
     * transaction's resources were released; their failures are logged.
     */
    public static void afterCompletion(Runnable onCommit, Runnable onRollback) {
        if (!active()) {
            onCommit.run();
            return;
        }
        Synchronizations.register(onCommit, onRollback);
    }

    /** The part that needs spring-tx, loaded only when it is present. */
    private static final class Synchronizations {

        static boolean active() {
            return TransactionSynchronizationManager.isSynchronizationActive()
                    && TransactionSynchronizationManager.isActualTransactionActive();
        }

        static void register(Runnable onCommit, Runnable onRollback) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    COMPLETING.set(Boolean.TRUE);
                    try {
                        if (status == STATUS_COMMITTED) {
                            onCommit.run();
                        } else {
                            if (status == STATUS_UNKNOWN) {
                                log.warn("the outcome of a transaction around an idempotent call is unknown (its commit"
                                        + " failed midway): its key is released, so a retry runs it again; the data"
                                        + " layer's unique constraints decide whether that retry may take effect");
                            }
                            onRollback.run();
                        }
                    } catch (RuntimeException e) {
                        log.warn("recording an idempotent call after its transaction ended failed: {}", e.toString());
                    } finally {
                        COMPLETING.remove();
                    }
                }
            });
        }
    }
}
