package io.onlyonce.verify.topology;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Stops the private servers still running when the JVM exits (a harness interrupted, a test JVM ending early). */
final class ShutdownKills {

    private static final Map<Object, Runnable> KILLS = new ConcurrentHashMap<>();

    static {
        Thread hook = new Thread(() -> KILLS.values().forEach(kill -> {
            try {
                kill.run();
            } catch (RuntimeException e) {
                // exiting: the next one still runs
            }
        }), "private-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    private ShutdownKills() {
    }

    static void register(Object owner, Runnable kill) {
        KILLS.put(owner, kill);
    }

    static void unregister(Object owner) {
        KILLS.remove(owner);
    }
}
