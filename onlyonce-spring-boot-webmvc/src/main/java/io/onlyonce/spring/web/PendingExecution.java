package io.onlyonce.spring.web;

import io.onlyonce.engine.Execution;
import io.onlyonce.spring.method.ReplayHeaders;
import org.jspecify.annotations.Nullable;
import org.springframework.web.context.request.async.AsyncRequestTimeoutException;

/**
 * An admitted execution waiting for its answer, kept on the request's {@link IdempotentExchange}
 * between the method interceptor (which admits) and {@link OnlyOnceFilter} (which records the
 * serialised answer).
 * Finished exactly once:
 * <ul>
 *   <li>when the answer is written ({@link #claimForRecording}), the filter records it. If the
 *       method threw (or its future failed) and an application exception handler still answered
 *       2xx or 3xx (a result wrapper's {@code {"code":500}} with 200), that answer is the failure's,
 *       and the key is freed as for any failure; a 4xx is a business answer and is kept;</li>
 *   <li>when the answer written is not the method's, because an asynchronous request timed out or
 *       broke off ({@link #interrupted}) while the work still runs, nothing is recorded: a watched
 *       future or {@code Callable} finishes the execution when its work ends (a success is kept
 *       without its response, a failure frees the key), and any other asynchronous answer leaves
 *       the key held until its lease ends, so the work never runs a second time while it may still
 *       be running;</li>
 *   <li>when the request ends without an answer ({@link #abandoned}), the key is freed.</li>
 * </ul>
 */
final class PendingExecution {

    private enum Work { RUNNING, SUCCEEDED, FAILED }

    private final Execution execution;
    private final ReplayHeaders replayHeaders;
    private final long maxBodySize;
    private final @Nullable Runnable onFailure;
    private boolean watched;
    private Work work = Work.RUNNING;
    private boolean interrupted;
    private boolean detached;
    private boolean finished;
    private boolean rolledBack;
    private @Nullable Throwable failure;

    /**
     * @param execution the engine's handle
     * @param replayHeaders which response headers to store
     * @param maxBodySize largest body stored; a larger one is kept without its response
     * @param onFailure run when the execution fails (restores a token under RETRYABLE), or null
     */
    PendingExecution(Execution execution, ReplayHeaders replayHeaders, long maxBodySize, @Nullable Runnable onFailure) {
        this.execution = execution;
        this.replayHeaders = replayHeaders;
        this.maxBodySize = maxBodySize;
        this.onFailure = onFailure;
    }

    Execution execution() {
        return execution;
    }

    ReplayHeaders replayHeaders() {
        return replayHeaders;
    }

    long maxBodySize() {
        return maxBodySize;
    }

    @Nullable Runnable onFailure() {
        return onFailure;
    }

    /** The method's work is watched: {@link #methodSucceeded} or {@link #methodFailed} will be called. */
    synchronized void watch() {
        watched = true;
    }

    /** The asynchronous request timed out or broke off: what is written next is not the method's answer. */
    synchronized void interrupted() {
        interrupted = true;
    }

    /** The watched work completed normally. After an interruption, the execution is kept without its response. */
    void methodSucceeded() {
        synchronized (this) {
            work = Work.SUCCEEDED;
            if (!detached || finished) {
                return;
            }
            finished = true;
        }
        execution.completeWithoutResponse(200);
    }

    /**
     * The method threw or its future failed. After an interruption this fails the execution; else
     * the answer that follows is recorded knowing it (see {@link #threw}).
     */
    void methodFailed(Throwable failure) {
        synchronized (this) {
            work = Work.FAILED;
            this.failure = failure;
            if (!detached || finished) {
                return;
            }
            finished = true;
        }
        fail(failure);
    }

    /**
     * The transaction the method's work ran in rolled back, or its commit failed: the work is not
     * durable, so whatever is answered is a failure's and the key is freed, whatever its status.
     */
    synchronized void rolledBack() {
        rolledBack = true;
        if (failure == null) {
            failure = new IllegalStateException("the transaction around the request rolled back");
        }
    }

    /** Whether the transaction of the method's work rolled back (see {@link #rolledBack()}). */
    synchronized boolean isRolledBack() {
        return rolledBack;
    }

    /** The method's failure, when it threw or its future failed; null otherwise. */
    synchronized @Nullable Throwable threw() {
        return failure;
    }

    /**
     * What the asynchronous dispatch carries, seen before the application handles it: a failure
     * other than a timeout, of work that is not watched, is the method's failure
     * ({@code DeferredResult.setErrorResult}, a {@code WebAsyncTask} that threw); a timeout is an
     * {@link #interrupted interruption}.
     */
    void concurrentResult(@Nullable Object result) {
        if (!(result instanceof Throwable failure)) {
            return;
        }
        synchronized (this) {
            if (failure instanceof AsyncRequestTimeoutException) {
                interrupted = true;
                return;
            }
            if (watched || interrupted) {
                return;
            }
        }
        methodFailed(failure);
    }

    /**
     * Whether the answer now written is the method's and this caller records it. False when the
     * execution was already finished, or when the answer is not the method's (see the class
     * comment): the execution is then left to the method's work or to the lease, or, when watched
     * work already ended, finished as it ended.
     */
    boolean claimForRecording() {
        Work ended;
        Throwable failed;
        synchronized (this) {
            if (finished || detached) {
                return false;
            }
            if (!interrupted && (!watched || work != Work.RUNNING)) {
                finished = true;
                return true;
            }
            if (!watched || work == Work.RUNNING) {
                detached = true;
                return false;
            }
            finished = true;
            ended = work;
            failed = failure;
        }
        if (ended == Work.SUCCEEDED || failed == null) {
            execution.completeWithoutResponse(200);
        } else {
            fail(failed);
        }
        return false;
    }

    /**
     * Fails the execution for a request that ended without a recorded answer, unless it is already
     * finished or left to its work or lease.
     */
    void abandoned(Throwable reason) {
        synchronized (this) {
            if (finished || detached) {
                return;
            }
            finished = true;
        }
        fail(reason);
    }

    /** Fails a claimed execution: frees the key (as its failure mode says) and runs {@code onFailure}. */
    void fail(Throwable failure) {
        execution.fail(failure);
        if (onFailure != null) {
            onFailure.run();
        }
    }
}
