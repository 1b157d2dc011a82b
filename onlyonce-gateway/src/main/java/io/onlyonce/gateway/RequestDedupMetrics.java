package io.onlyonce.gateway;

import java.time.Duration;
import java.util.Locale;

/** What the {@code RequestDedup} filter decided, per route, and how long each Redis call took. */
public interface RequestDedupMetrics {

    /** What happened to one request on a de-duplicated route. */
    enum Outcome {
        /** The first of its window: sent on. */
        PASSED,
        /** Seen within the window: answered 429, never sent on. */
        DUPLICATE,
        /**
         * Seen within the window with the idempotency key of the request that opened it: the client's
         * retry, sent on uncounted for the service to replay (not a refusal of the window).
         */
        KEYED_RETRY,
        /** The store failed, timed out or its circuit was open: sent on unchecked. */
        FAIL_OPEN,
        /** The body was over the limit: answered 413. */
        TOO_LARGE,
        /** The business id was missing or malformed: answered 400. */
        BUSINESS_ID_INVALID;

        /** The tag value: lower case, underscores. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Does nothing. */
    RequestDedupMetrics NONE = new RequestDedupMetrics() {
        @Override
        public void count(String routeId, Outcome outcome) {
        }

        @Override
        public void storeCall(String routeId, Duration elapsed, boolean success) {
        }
    };

    void count(String routeId, Outcome outcome);

    /** One call to the window store, answered ({@code success}) or failed or timed out. */
    void storeCall(String routeId, Duration elapsed, boolean success);
}
