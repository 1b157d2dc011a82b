package io.onlyonce.redis;

import io.onlyonce.StoredResponse;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.window.WindowHit;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** What one {@link RedisAtomicExecutor#run} call did, in the order the script checks. */
public sealed interface AtomicOutcome {

    /**
     * A repeated hit of an open request window: counted, as {@link RedisWindowStore#hit} counts it;
     * nothing else was read or written.
     *
     * @param hit the hit, its count above 1
     */
    record InWindow(WindowHit hit) implements AtomicOutcome {

        public InWindow {
            Objects.requireNonNull(hit, "hit");
        }
    }

    /**
     * The one-time token is not alive (unknown, used or expired, on Redis's clock): the effect did not
     * run and nothing was written but the window's first hit, if the call had a window.
     *
     * @param first the record under the call's key, read in the same script: with the key derived
     *     from the token, the first request's answer (what {@code IdempotentRequests.refusedToken}
     *     looks up)
     */
    record TokenRefused(Optional<IdempotencyRecord> first) implements AtomicOutcome {

        public TokenRefused {
            Objects.requireNonNull(first, "first");
        }
    }

    /**
     * A live record, in progress or completed, exactly as {@link io.onlyonce.store.ClaimResult.Existing}:
     * replay it, report it in progress, or a mismatch when its fingerprint is another. The effect did
     * not run; nothing was written but the window's first hit; the token, if any, stays as it was.
     *
     * @param record the live record
     */
    record Existing(IdempotencyRecord record) implements AtomicOutcome {

        public Existing {
            Objects.requireNonNull(record, "record");
        }
    }

    /**
     * The effect answered {@code 'complete'}: its writes, the completed record with this response
     * (for the call's retention), the token's consumption and the window's first hit were one script.
     *
     * @param response the stored response, as every later {@link Existing} replays it
     */
    record Completed(StoredResponse response) implements AtomicOutcome {

        public Completed {
            Objects.requireNonNull(response, "response");
        }
    }

    /**
     * The effect answered {@code 'decline'}: no record was written; the token was consumed unless the
     * call said otherwise ({@link AtomicCall.Builder#consumeTokenOnDecline(boolean)}).
     *
     * @param values what followed {@code 'decline'}, as Redis converts Lua values: strings as
     *     {@code byte[]}, numbers as {@link Long} (truncated), {@code true} as {@code 1L},
     *     {@code false} as {@code null}, tables as lists
     */
    record Declined(List<@Nullable Object> values) implements AtomicOutcome {

        public Declined {
            values = Collections.unmodifiableList(new ArrayList<>(values));
        }

        /**
         * A value as text: a string as UTF-8, a number in decimal.
         *
         * @throws IndexOutOfBoundsException when there is no such value
         */
        public @Nullable String text(int index) {
            Object value = values.get(index);
            return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8)
                    : value == null ? null : String.valueOf(value);
        }
    }
}
