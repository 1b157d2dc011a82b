package io.onlyonce.spring.testapp;

import io.onlyonce.spring.Idempotent;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** A handler that is its own transaction, whose commit can be made to fail after it returned. */
@RestController
public class TransactionalController {

    private final AtomicInteger executions = new AtomicInteger();

    public int executions() {
        return executions.get();
    }

    @PostMapping("/tx/refunds")
    @Idempotent
    @Transactional
    public Map<String, Object> refund(@RequestParam(defaultValue = "false") boolean failCommit) {
        int n = executions.incrementAndGet();
        if (failCommit) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    throw new IllegalStateException("a deferred constraint failed at commit");
                }
            });
        }
        return Map.of("refund", n);
    }
}
