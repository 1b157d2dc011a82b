package io.onlyonce.verify.run;

import java.time.LocalTime;
import java.time.temporal.ChronoUnit;

/** The harness's console lines: {@code [verify hh:mm:ss] ...}. */
public final class Console {

    private Console() {
    }

    public static synchronized void say(String line) {
        System.out.println("[verify " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + "] " + line);
        System.out.flush();
    }
}
