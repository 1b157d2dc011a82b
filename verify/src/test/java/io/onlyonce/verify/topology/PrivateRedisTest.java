package io.onlyonce.verify.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.SocketTimeoutException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateRedisTest {

    @TempDir
    Path dir;

    private PrivateRedis redis;

    @AfterEach
    void cleanUp() {
        if (redis != null) {
            redis.resume();
            redis.close();
        }
    }

    @Test
    void restartEmptyLosesEveryKeyAndKeepsThePort() throws Exception {
        int port = Ports.free();
        redis = PrivateRedis.start(dir, port);
        assertThat(redis.port()).isEqualTo(port);
        assertThat(Resp.call(port, 2000, "SET", "k", "v")).isEqualTo("OK");
        assertThat(Resp.call(port, 2000, "GET", "k")).isEqualTo("v");
        long before = redis.pid();

        redis.restartEmpty();

        assertThat(redis.pid()).isNotEqualTo(before);
        assertThat(ProcessHandle.of(before).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(Resp.call(port, 2000, "GET", "k")).isNull();
        assertThat(Resp.call(port, 2000, "DBSIZE")).isEqualTo("0");
    }

    @Test
    void aPausedServerAnswersNothingUntilResumed() throws Exception {
        int port = Ports.free();
        redis = PrivateRedis.start(dir, port);

        redis.pause();
        assertThatThrownBy(() -> Resp.call(port, 500, "PING")).isInstanceOf(SocketTimeoutException.class);

        redis.resume();
        assertThat(Resp.call(port, 2000, "PING")).isEqualTo("PONG");
    }

    @Test
    void aJvmThatExitsWithoutClosingStopsItsServer() throws Exception {
        int port = Ports.free();
        Process child = new ProcessBuilder(JavaService.javaExecutable(), "-cp", System.getProperty("java.class.path"),
                Leaver.class.getName(), dir.toString(), Integer.toString(port))
                .redirectErrorStream(true)
                .start();
        String output = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        long pid = -1;
        try {
            assertThat(child.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(output).startsWith("pid ");
            pid = Long.parseLong(output.substring(4).strip());
            long serverPid = pid;
            assertThat(ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            assertThat(Resp.ping(port, 500)).isFalse();
        } finally {
            child.destroyForcibly();
            if (pid > 0) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /** Starts a private Redis, prints its pid and exits without closing it. */
    static final class Leaver {
        public static void main(String[] args) throws Exception {
            PrivateRedis redis = PrivateRedis.start(Path.of(args[0]), Integer.parseInt(args[1]));
            System.out.println("pid " + redis.pid());
            System.out.flush();
            System.exit(0);
        }
    }

    @Test
    void closeStopsTheServer() throws Exception {
        int port = Ports.free();
        redis = PrivateRedis.start(dir, port);
        long pid = redis.pid();
        redis.close();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(Resp.ping(port, 500)).isFalse();
        redis = null;
    }
}
