/**
 * Contract suites for the store SPIs. A store module's test extends
 * {@link io.onlyonce.testing.AbstractIdempotencyStoreContractTest},
 * {@link io.onlyonce.testing.AbstractTokenStoreContractTest} and
 * {@link io.onlyonce.testing.AbstractWindowStoreContractTest}, fills their hooks with a store on
 * the real server, and so proves it keeps the same rules as every other store.
 */
@NullMarked
package io.onlyonce.testing;

import org.jspecify.annotations.NullMarked;
