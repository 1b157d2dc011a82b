package io.onlyonce.redis;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a Redis contract test class needs, whatever the client: a key prefix of its own (in
 * {@link #config()}), stores on the test server (its keys deleted on {@link #close()}), stores of a
 * second client of the same server and prefix (another application instance), and stores on a
 * private server that the test kills. {@link RedisFixture} is the direct Lettuce one; other client
 * modules bring theirs (the test jar of this module carries the contract test classes).
 */
public interface RedisStoreFixture extends AutoCloseable {

    /** The stores' settings: this class's own key prefix. */
    RedisStoreConfig config();

    /** The settings of a store on the killed server; by default {@link #config()}. */
    default RedisStoreConfig deadConfig() {
        return config();
    }

    /** The stores on the shared connection to the test server. */
    RedisStores stores();

    /** The stores of another client of the same test server. */
    RedisStores secondStores();

    /**
     * A store on a private server: built by {@code storeOn}, proven to work by {@code proveAlive},
     * then left with its server killed.
     */
    <S> S storeOnKilledServer(Function<RedisStores, S> storeOn, Consumer<S> proveAlive) throws Exception;

    /** Removes the private server of the last {@link #storeOnKilledServer} call. */
    void closeKilledServer() throws Exception;
}
