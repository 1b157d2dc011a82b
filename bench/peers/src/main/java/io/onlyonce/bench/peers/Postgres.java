package io.onlyonce.bench.peers;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL server: databases made and dropped, and what one phase cost it, for one database.
 *
 * <p>WAL: the server's WAL between two insert positions is read with {@code pg_waldump} and only the
 * records of the contender's database are summed (those that name a block of one of its relations,
 * and the commit and abort records of transactions that did), so that other databases on the same
 * server do not count; when {@code pg_waldump} cannot read the range (segments recycled), the whole
 * server's WAL between the two positions is taken, marked {@code ~}. CPU: user + system time of the
 * database's client backends ({@code /proc/PID/stat}; the server runs on this machine), before and
 * after; the server's background processes (WAL writer, checkpointer) are not counted.
 */
final class Postgres {

    private static final Pattern RECORD = Pattern.compile("len \\(rec/tot\\):\\s*\\d+/\\s*(\\d+), tx:\\s*(\\d+)");

    private final String server;
    private final String waldump;
    private final Path walDirectory;
    private final long ticksPerSecond;

    Postgres(String server) throws Exception {
        this.server = server;
        String dataDirectory;
        int major;
        try (Connection c = admin(); Statement s = c.createStatement()) {
            dataDirectory = single(s, "SHOW data_directory");
            major = Integer.parseInt(single(s, "SHOW server_version_num")) / 10000;
        }
        Path dump = Path.of(System.getProperty("peers.waldump", "/usr/lib/postgresql/" + major + "/bin/pg_waldump"));
        Path wal = Path.of(dataDirectory, "pg_wal");
        this.waldump = Files.isExecutable(dump) ? dump.toString() : null;
        this.walDirectory = Files.isDirectory(wal) ? wal : null;
        this.ticksPerSecond = Long.parseLong(exec(List.of("getconf", "CLK_TCK")).trim());
    }

    private Connection admin() throws SQLException {
        return DriverManager.getConnection(server + "postgres", "postgres", "");
    }

    String url(String database) {
        return server + database;
    }

    void create(String database) throws SQLException {
        try (Connection c = admin(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + database);
        }
        try (Connection c = DriverManager.getConnection(url(database), "postgres", ""); Statement s = c.createStatement()) {
            s.execute(Contender.ORDERS_DDL);
        }
    }

    void drop(String database) throws SQLException {
        try (Connection c = admin(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    /** Where the server's WAL and the database's backends stand. */
    Mark mark(String database) throws Exception {
        try (Connection c = admin(); Statement s = c.createStatement()) {
            String lsn = single(s, "SELECT pg_current_wal_insert_lsn()");
            return new Mark(lsn, backendTicks(c, database));
        }
    }

    /** What the database cost between {@code from} and {@code to}. */
    Cost cost(String database, Mark from, Mark to) throws Exception {
        long all;
        long oid;
        try (Connection c = admin(); Statement s = c.createStatement()) {
            all = Long.parseLong(single(s, "SELECT pg_wal_lsn_diff('" + to.lsn() + "', '" + from.lsn() + "')::bigint"));
            try (PreparedStatement q = c.prepareStatement("SELECT oid FROM pg_database WHERE datname = ?")) {
                q.setString(1, database);
                try (ResultSet r = q.executeQuery()) {
                    r.next();
                    oid = r.getLong(1);
                }
            }
        }
        long ticks = 0;
        for (Map.Entry<Integer, Long> backend : to.ticks().entrySet()) {
            ticks += backend.getValue() - from.ticks().getOrDefault(backend.getKey(), 0L);
        }
        double cpuSeconds = ticks / (double) ticksPerSecond;
        Long own = databaseWal(oid, from.lsn(), to.lsn());
        return own == null ? new Cost(all, true, cpuSeconds) : new Cost(own, false, cpuSeconds);
    }

    /** The WAL bytes of the database's records between two positions, or null when unreadable. */
    private Long databaseWal(long oid, String from, String to) {
        if (waldump == null || walDirectory == null) {
            return null;
        }
        try {
            Process process = new ProcessBuilder(waldump, "-p", walDirectory.toString(), "-s", from, "-e", to)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String mine = "rel " + "1663/" + oid + "/";
            Set<Long> transactions = new HashSet<>();
            long bytes = 0;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    Matcher m = RECORD.matcher(line);
                    if (!m.find()) {
                        continue;
                    }
                    long length = Long.parseLong(m.group(1));
                    long tx = Long.parseLong(m.group(2));
                    if (line.contains(mine)) {
                        bytes += length;
                        if (tx != 0) {
                            transactions.add(tx);
                        }
                    } else if (!line.contains("blkref") && tx != 0 && transactions.contains(tx)) {
                        bytes += length; // commit / abort of one of its transactions
                    }
                }
            }
            int exit = process.waitFor();
            // pg_waldump exits 1 at the end position when the last record is incomplete; a range it
            // could not open at all yields nothing
            return exit <= 1 && bytes > 0 ? bytes : null;
        } catch (Exception e) {
            return null;
        }
    }

    private Map<Integer, Long> backendTicks(Connection c, String database) throws SQLException {
        Map<Integer, Long> ticks = new HashMap<>();
        List<Integer> pids = new ArrayList<>();
        try (PreparedStatement q = c.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE datname = ? AND backend_type = 'client backend'")) {
            q.setString(1, database);
            try (ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    pids.add(r.getInt(1));
                }
            }
        }
        for (int pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                // fields after the command: state is [0], utime [11], stime [12]
                ticks.put(pid, Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
            } catch (Exception e) {
                // not on this machine, or gone
            }
        }
        return ticks;
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getString(1);
        }
    }

    private static String exec(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        return out;
    }

    /** The server's WAL insert position and the CPU ticks of each of the database's backends. */
    record Mark(String lsn, Map<Integer, Long> ticks) {
    }

    /** WAL bytes (the whole server's when {@code serverWide}), backend CPU seconds. */
    record Cost(long walBytes, boolean serverWide, double cpuSeconds) {
    }
}
