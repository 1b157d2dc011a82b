package io.onlyonce.redis.springdata;

import io.onlyonce.testing.InternalPackages;
import org.junit.jupiter.api.Test;

/**
 * This module plugs into {@code onlyonce-redis} through its API only (the
 * {@code io.onlyonce.redis.script.ScriptPort} SPI): no class of it, main or test, uses
 * {@code io.onlyonce.redis.internal}.
 */
class ModuleBoundariesTest {

    @Test
    void usesNoInternalPackageOfOnlyonceRedis() {
        InternalPackages.assertNotReferenced(SpringDataRedisStoreConnection.class, "io.onlyonce.redis.internal");
        InternalPackages.assertNotReferenced(ModuleBoundariesTest.class, "io.onlyonce.redis.internal");
    }
}
