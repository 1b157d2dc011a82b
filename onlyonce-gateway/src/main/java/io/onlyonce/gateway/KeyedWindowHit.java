package io.onlyonce.gateway;

import io.onlyonce.window.WindowHit;
import java.util.Objects;

/**
 * The window's answer to a request that carries an idempotency key.
 *
 * @param hit this request's hit: its number within the window and the time left; for a
 *     {@code retry}, the count the window had (this request was not counted)
 * @param retry whether the window was opened by a request with the same idempotency key: the
 *     client's retry of its own request, which the service behind replays
 */
public record KeyedWindowHit(WindowHit hit, boolean retry) {

    public KeyedWindowHit {
        Objects.requireNonNull(hit, "hit");
    }
}
