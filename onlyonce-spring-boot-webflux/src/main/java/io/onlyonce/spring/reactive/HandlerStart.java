package io.onlyonce.spring.reactive;

import io.onlyonce.engine.AsyncExecution;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Whether the handler of one protected request has begun, which decides what a cancellation (the
 * client went away, the subscription was disposed) does with its key: cancelled before the handler
 * began, nothing ran, so the key is released and a retry runs at once (and a consumed one-time token
 * is given back); cancelled after, the handler's effect may be under way, so the key is left to its
 * lease. Created by {@link ReactiveIdempotency} before the key is claimed and kept as an attribute
 * of the exchange; the handler begins where {@link #run} is called: at the end of the web filter
 * chain ({@link OnlyOnceHandlerStartFilter}) for annotated controllers, around the handler function
 * for functional routes. Thread-safe: a cancellation and the handler's start may race, and exactly
 * one of them wins.
 */
final class HandlerStart {

    private static final Logger log = LoggerFactory.getLogger(HandlerStart.class);
    private static final String ATTRIBUTE = HandlerStart.class.getName();

    private enum State {
        /** Claiming, or admitted and the handler has not begun. */
        WAITING,
        /** The handler has begun. */
        STARTED,
        /** The execution is being finished with the handler's answer or failure. */
        FINISHING,
        /** Cancelled before the handler began: the key is (being) released. */
        ABANDONED
    }

    private final String endpoint;
    private final @Nullable Runnable giveBack;
    private State state = State.WAITING;
    private @Nullable AsyncExecution execution;

    /**
     * @param endpoint the request's endpoint, for the log
     * @param giveBack what gives a consumed one-time token back when the handler never began, or null
     */
    HandlerStart(String endpoint, @Nullable Runnable giveBack) {
        this.endpoint = endpoint;
        this.giveBack = giveBack;
    }

    void attachTo(ServerWebExchange exchange) {
        exchange.getAttributes().put(ATTRIBUTE, this);
    }

    /**
     * Runs {@code handler} as the protected request's handler beginning, when subscribed: not at all
     * (empty) when the request was cancelled before. A request without a {@code HandlerStart}
     * (unprotected, or deciding itself) just runs it.
     */
    static Mono<Void> run(ServerWebExchange exchange, Supplier<Mono<Void>> handler) {
        return Mono.defer(() -> {
            HandlerStart start = exchange.getAttribute(ATTRIBUTE) instanceof HandlerStart s ? s : null;
            return start == null || start.begin() ? handler.get() : Mono.<Void>empty();
        });
    }

    /** The claim admitted the request: {@code admitted} is what a cancellation before the handler releases. */
    void admitted(AsyncExecution admitted) {
        boolean abandoned;
        synchronized (this) {
            execution = admitted;
            abandoned = state == State.ABANDONED;
        }
        if (abandoned) {
            release(admitted);
        }
    }

    /** Whether the handler may begin: false once the request was cancelled. */
    private synchronized boolean begin() {
        if (state == State.WAITING) {
            state = State.STARTED;
            return true;
        }
        return state == State.STARTED;
    }

    /**
     * Whether the execution is to be finished with what the handler (or what ran in its place)
     * answered: false when the request was cancelled before, whose key is released instead.
     */
    synchronized boolean finishing() {
        if (state == State.ABANDONED) {
            return false;
        }
        state = State.FINISHING;
        return true;
    }

    /** Whether the request was cancelled before its handler began. */
    synchronized boolean abandoned() {
        return state == State.ABANDONED;
    }

    /** The request was cancelled: releases its key if its handler had not begun. */
    void cancelled() {
        AsyncExecution release;
        synchronized (this) {
            if (state != State.WAITING) {
                if (state == State.STARTED) {
                    log.debug("a request to {} was cancelled while its handler ran: its key is left to its lease", endpoint);
                }
                return;
            }
            state = State.ABANDONED;
            release = execution;
        }
        if (release != null) {
            release(release);
        } else {
            log.debug("a request to {} was cancelled while its key was being claimed: a claim it makes is released", endpoint);
        }
    }

    private void release(AsyncExecution abandoned) {
        abandoned.abandon().whenComplete((released, failure) -> {
            if (giveBack != null) {
                giveBack.run();
            }
            log.debug("a request to {} was cancelled before its handler began: its key {}", endpoint,
                    Boolean.TRUE.equals(released) ? "was released" : "is left to its lease", failure);
        });
    }
}
