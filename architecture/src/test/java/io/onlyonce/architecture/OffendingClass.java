package io.onlyonce.architecture;

/** Outside onlyonce-core, it uses core's internal package: what {@link ArchitectureTest} must refuse. */
final class OffendingClass {

    private OffendingClass() {
    }

    static byte[] canonical(byte[] json) {
        return io.onlyonce.internal.JsonCanonicalizer.canonicalizeOrSelf(json);
    }
}
