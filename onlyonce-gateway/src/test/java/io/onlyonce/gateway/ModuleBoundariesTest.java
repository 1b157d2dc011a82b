package io.onlyonce.gateway;

import io.onlyonce.testing.InternalPackages;
import org.junit.jupiter.api.Test;

/** The gateway uses {@code onlyonce-redis} through its API only: no class of it, main or test, uses an internal package of another module. */
class ModuleBoundariesTest {

    private static final String[] OTHERS_INTERNALS = {"io.onlyonce.redis.internal", "io.onlyonce.redis.springdata.internal"};

    @Test
    void usesNoInternalPackageOfAnotherModule() {
        InternalPackages.assertNotReferenced(ReactiveRedisWindowStore.class, OTHERS_INTERNALS);
        InternalPackages.assertNotReferenced(ModuleBoundariesTest.class, OTHERS_INTERNALS);
    }
}
