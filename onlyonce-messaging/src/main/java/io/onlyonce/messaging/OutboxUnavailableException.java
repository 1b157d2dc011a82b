package io.onlyonce.messaging;

import io.onlyonce.StoreUnavailableException;

/**
 * A message could not be recorded in the transactional outbox (the database refused or did not
 * answer the INSERT). Raised inside the business transaction, which must then roll back: the business
 * change and its message commit together or not at all. Its own type, so that a web layer can tell
 * "the request could not be completed" from "the idempotency store is down"; the message names the
 * operation, never the database's internals.
 */
public class OutboxUnavailableException extends StoreUnavailableException {

    private static final long serialVersionUID = 1L;

    public OutboxUnavailableException(String operation, Throwable cause) {
        super(operation, cause);
    }
}
