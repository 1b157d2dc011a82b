package io.onlyonce.spring.web;

import io.onlyonce.engine.Execution;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * An admitted execution waiting for its response, kept in a request attribute between the method
 * interceptor (which admits) and {@link OnlyOnceFilter} (which records the serialised answer).
 *
 * @param execution the engine's handle
 * @param replayHeaders lower-case names of the response headers to store
 * @param maxBodySize largest body stored; a larger one releases the key
 * @param onFailure run when the execution fails (restores a token under RETRYABLE), or null
 */
record PendingExecution(Execution execution, Set<String> replayHeaders, long maxBodySize, @Nullable Runnable onFailure) {

    static final String ATTRIBUTE = PendingExecution.class.getName();
}
