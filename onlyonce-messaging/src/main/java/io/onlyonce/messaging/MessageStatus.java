package io.onlyonce.messaging;

/**
 * The states of a row of the outbox (the usual outbox states, plus FAILED):
 *
 * <pre>
 *   record ──▶ PREPARED ──claim──▶ SENDING ──confirm──▶ SUCCESS ──purge──▶ (deleted)
 *                 ▲                   │  │
 *                 └──failure, backoff─┘  └──failure after max attempts──▶ FAILED
 *                 ▲                   │                                     │
 *                 └──lease passed (sweep: claimed again)                    │
 *                 └─────────────────────────resubmit────────────────────────┘
 * </pre>
 */
public enum MessageStatus {
    /** Recorded, waiting for the relay: due now, or at the end of a backoff. */
    PREPARED,
    /** Claimed by a relay, which is publishing it under a lease; claimed again once the lease passed. */
    SENDING,
    /** The broker confirmed it (routed). Deleted by the purge after a retention. */
    SUCCESS,
    /** Given up after the maximum number of attempts; waits for an operator's resubmit. */
    FAILED
}
