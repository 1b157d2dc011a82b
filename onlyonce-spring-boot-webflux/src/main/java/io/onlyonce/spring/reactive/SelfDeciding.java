package io.onlyonce.spring.reactive;

/**
 * A handler method argument that decides its request itself, in the same store call as the
 * method's effect ({@link ReactiveAtomicIdempotency}): for a method that declares one,
 * {@link OnlyOnceWebFilter} verifies the key or token and resolves the record's key
 * ({@link SelfDecidedRequest}), but claims, consumes and records nothing.
 */
interface SelfDeciding {
}
