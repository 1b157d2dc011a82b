package io.onlyonce.verify.run;

import io.onlyonce.verify.nemesis.FaultKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The command line of {@code scripts/verify.sh}.
 *
 * @param minutes how long the workload runs under faults
 * @param seed the seed of the fault schedule and of every client's choices
 * @param faults the fault kinds to inject
 * @param breaks the protections switched off ({@code business-layer}, {@code inbox}), to prove the checks can fail
 * @param out where the history, the report and the logs go
 * @param repo the repository root (the packaged jars are read from there)
 * @param clients how many client processes run the workload
 */
public record Options(double minutes, long seed, List<FaultKind> faults, List<String> breaks, Path out, Path repo, int clients) {

    /** The protections {@code --break} knows. */
    public static final List<String> BREAKS = List.of("business-layer", "inbox");

    public static Options parse(String[] args) {
        double minutes = 2;
        long seed = System.currentTimeMillis() % 1_000_000;
        List<FaultKind> faults = List.of(FaultKind.values());
        List<String> breaks = new ArrayList<>();
        Path out = null;
        Path repo = Path.of(".").toAbsolutePath().normalize();
        int clients = 12;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String next = i + 1 < args.length ? args[i + 1] : null;
            switch (arg) {
                case "--minutes" -> { minutes = number(arg, next, "a positive number of minutes"); i++; }
                case "--seed" -> { seed = (long) number(arg, next, "a whole number"); i++; }
                case "--faults" -> { faults = faults(required(arg, next)); i++; }
                case "--break" -> {
                    for (String b : required(arg, next).split(",")) {
                        if (!BREAKS.contains(b.trim())) {
                            throw new IllegalArgumentException("--break takes " + String.join(", ", BREAKS) + ": " + b);
                        }
                        breaks.add(b.trim());
                    }
                    i++;
                }
                case "--out" -> { out = Path.of(required(arg, next)); i++; }
                case "--repo" -> { repo = Path.of(required(arg, next)).toAbsolutePath().normalize(); i++; }
                case "--clients" -> { clients = (int) number(arg, next, "a positive number of client processes"); i++; }
                default -> throw new IllegalArgumentException("unknown argument " + arg
                        + " (scripts/verify.sh [--minutes N] [--seed S] [--faults kind,...] [--break PROTECTION] [--out DIR])");
            }
        }
        if (minutes <= 0) {
            throw new IllegalArgumentException("--minutes needs a positive number of minutes, got " + minutes);
        }
        if (clients < 1) {
            throw new IllegalArgumentException("--clients needs a positive number, got " + clients);
        }
        if (out == null) {
            out = repo.resolve("target").resolve("verify").resolve("seed-" + seed);
        }
        return new Options(minutes, seed, List.copyOf(faults), List.copyOf(breaks), out.toAbsolutePath(), repo, clients);
    }

    private static List<FaultKind> faults(String text) {
        if (text.isBlank()) {
            throw new IllegalArgumentException("--faults is empty: name the kinds, or say all or none");
        }
        if (text.equals("none")) {
            return List.of();
        }
        if (text.equals("all")) {
            return List.of(FaultKind.values());
        }
        return Arrays.stream(text.split(",")).map(String::trim).map(FaultKind::ofName).toList();
    }

    private static double number(String arg, String value, String what) {
        String text = required(arg, value);
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(arg + " needs " + what + ", got \"" + text + "\"");
        }
    }

    private static String required(String arg, String value) {
        if (value == null || value.startsWith("--")) {
            throw new IllegalArgumentException(arg + " needs a value");
        }
        return value;
    }

    /** The command that reproduces this run. */
    public String command() {
        StringBuilder c = new StringBuilder("scripts/verify.sh --minutes ").append(minutes == Math.rint(minutes)
                ? String.valueOf((long) minutes) : String.valueOf(minutes)).append(" --seed ").append(seed);
        c.append(" --faults ").append(faults.isEmpty() ? "none"
                : String.join(",", faults.stream().map(FaultKind::wire).toList()));
        for (String b : breaks) {
            c.append(" --break ").append(b);
        }
        if (clients != 12) {
            c.append(" --clients ").append(clients);
        }
        return c.toString();
    }

    public boolean broken(String protection) {
        return breaks.contains(protection.toLowerCase(Locale.ROOT));
    }
}
