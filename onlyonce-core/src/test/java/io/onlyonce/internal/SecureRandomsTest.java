package io.onlyonce.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Base64;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SecureRandomsTest {

    @Test
    void manyThreadsNeverDrawTheSameBytes() throws InterruptedException {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(32);
        for (int t = 0; t < 32; t++) {
            pool.execute(() -> {
                for (int i = 0; i < 2_000; i++) {
                    byte[] bytes = new byte[16];
                    SecureRandoms.nextBytes(bytes);
                    seen.add(Base64.getEncoder().encodeToString(bytes));
                }
            });
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).hasSize(32 * 2_000);
    }

    @Test
    void bytesAreNotAllAlike() {
        byte[] bytes = new byte[64];
        SecureRandoms.nextBytes(bytes);
        int[] counts = new int[256];
        for (byte b : bytes) {
            counts[b & 0xFF]++;
        }
        assertThat(Arrays.stream(counts).max().orElseThrow()).isLessThan(8);
    }
}
