package io.onlyonce.messaging;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An outbox listener that keeps every call, as text lines and objects, for assertions. */
final class RecordingListener implements OutboxListener {

    final List<OutboxMessage> sent = new CopyOnWriteArrayList<>();
    final List<Retry> retries = new CopyOnWriteArrayList<>();
    final List<Failed> failed = new CopyOnWriteArrayList<>();
    final List<RuntimeException> pollFailures = new CopyOnWriteArrayList<>();

    @Override
    public void onSent(OutboxMessage message) {
        sent.add(message);
    }

    @Override
    public void onRetry(OutboxMessage message, int attempt, Throwable error, Duration nextAttemptIn) {
        retries.add(new Retry(message, attempt, error, nextAttemptIn));
    }

    @Override
    public void onFailed(OutboxMessage message, int attempts, Throwable error) {
        failed.add(new Failed(message, attempts, error));
    }

    @Override
    public void onPollFailed(RuntimeException error) {
        pollFailures.add(error);
    }

    record Retry(OutboxMessage message, int attempt, Throwable error, Duration nextAttemptIn) {
    }

    record Failed(OutboxMessage message, int attempts, Throwable error) {
    }
}
