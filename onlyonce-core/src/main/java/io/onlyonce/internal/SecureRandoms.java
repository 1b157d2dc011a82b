package io.onlyonce.internal;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Unpredictable bytes without a JVM-wide lock. A {@code new SecureRandom()} on Linux is
 * {@code NativePRNG}, and every instance of it reads through one shared, synchronized
 * {@code /dev/urandom} reader: under load, request threads queue on that monitor. Here each of a
 * fixed set of {@code DRBG} generators (NIST SP 800-90A, seeded from the system once) serves the
 * threads whose id falls on it, so threads rarely meet on a lock and virtual threads do not create
 * a generator each.
 */
public final class SecureRandoms {

    private static final SecureRandom[] STRIPES = stripes(Math.max(4, Runtime.getRuntime().availableProcessors() * 4));

    private SecureRandoms() {
    }

    /** Fills {@code bytes} with unpredictable bytes. */
    public static void nextBytes(byte[] bytes) {
        STRIPES[(int) (Thread.currentThread().getId() % STRIPES.length)].nextBytes(bytes);
    }

    private static SecureRandom[] stripes(int count) {
        SecureRandom[] stripes = new SecureRandom[count];
        for (int i = 0; i < count; i++) {
            stripes[i] = drbg();
        }
        return stripes;
    }

    private static SecureRandom drbg() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException absent) {
            return new SecureRandom();
        }
    }
}
