package io.onlyonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.store.OwnerToken;
import org.junit.jupiter.api.Test;

/** The check finds a reference in a compiled class, and passes where there is none. */
class InternalPackagesTest {

    /** A reference to {@code io.onlyonce.store} in this class's constant pool. */
    private static final Class<?> USED = OwnerToken.class;

    @Test
    void aReferencedPackageFailsNamingTheClass() {
        assertThat(USED).isNotNull();
        assertThatThrownBy(() -> InternalPackages.assertNotReferenced(InternalPackagesTest.class, "io.onlyonce.store"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("io/onlyonce/testing/InternalPackagesTest.class uses io.onlyonce.store");
    }

    @Test
    void aPackageNoClassUsesPasses() {
        InternalPackages.assertNotReferenced(InternalPackagesTest.class, "io.onlyonce.store.internal", "io.onlyonce.nowhere");
    }
}
