package io.onlyonce.verify.topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * A private PostgreSQL cluster ({@code initdb}, {@code pg_ctl}) on its own loopback port, run as the
 * user {@code postgres}, with fsync on: a restart keeps what was committed.
 */
public final class PrivatePostgres implements AutoCloseable {

    /** The newest installed PostgreSQL's binaries (Debian: /usr/lib/postgresql/VERSION/bin/). */
    static final String BIN = newestBin();
    private static final String OS_USER = "postgres";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private static String newestBin() {
        java.io.File[] versions = new java.io.File("/usr/lib/postgresql").listFiles(f -> new java.io.File(f, "bin/initdb").isFile());
        if (versions == null || versions.length == 0) {
            return "/usr/lib/postgresql/15/bin/";
        }
        java.util.Arrays.sort(versions, java.util.Comparator.comparingInt(f -> {
            try {
                return Integer.parseInt(f.getName());
            } catch (NumberFormatException e) {
                return 0;
            }
        }));
        return versions[versions.length - 1].getAbsolutePath() + "/bin/";
    }

    private final Path dir;
    private final Path data;
    private final Path socketDir;
    private final int port;

    private PrivatePostgres(Path dir, int port) throws IOException {
        this.dir = dir.toAbsolutePath();
        this.data = this.dir.resolve("data");
        this.port = port;
        Path sockets = this.dir.resolve("sock");
        // a Unix socket's path is limited to 107 bytes
        this.socketDir = sockets.toString().length() + 20 > 100
                ? Path.of("/tmp", "onlyonce-pg-" + port)
                : sockets;
    }

    /**
     * Runs {@code initdb} (trust authentication, superuser {@code postgres}) when {@code dir} holds no
     * cluster yet, starts the server on {@code port} and waits until a JDBC connection opens.
     */
    public static PrivatePostgres start(Path dir, int port) throws Exception {
        Files.createDirectories(dir);
        PrivatePostgres postgres = new PrivatePostgres(dir, port);
        postgres.prepare();
        try {
            postgres.startAgain();
        } catch (Exception e) {
            postgres.close();
            throw e;
        }
        return postgres;
    }

    public int port() {
        return port;
    }

    /** {@code jdbc:postgresql://127.0.0.1:PORT/DB}; user {@code postgres}, no password. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** The user to connect as. */
    public String user() {
        return OS_USER;
    }

    /** A new JDBC connection to {@code database} as {@code postgres}. */
    public Connection connect(String database) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", OS_USER);
        properties.setProperty("connectTimeout", "5");
        properties.setProperty("socketTimeout", "30");
        return DriverManager.getConnection(jdbcUrl(database), properties);
    }

    /** {@code CREATE DATABASE name}. */
    public void createDatabase(String name) throws Exception {
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("not a plain database name: " + name);
        }
        try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
    }

    /** {@code pg_ctl stop -m fast}, then start again and wait for a connection. */
    public void restart() throws Exception {
        stop();
        startAgain();
    }

    /** {@code pg_ctl stop -m fast}: open connections are closed, what was committed stays. */
    public void stop() throws Exception {
        pgCtlStop("fast");
    }

    /** {@code pg_ctl start}, then waits until a JDBC connection opens. */
    public void startAgain() throws Exception {
        String options = "-p " + port
                + " -k " + socketDir
                + " -c listen_addresses=127.0.0.1"
                + " -c max_connections=100";
        ShutdownKills.register(this, this::close);
        Commands.Result result = asPostgres(List.of(BIN + "pg_ctl", "start", "-w", "-t", "60",
                "-D", data.toString(), "-l", dir.resolve("postgres.log").toString(), "-o", options),
                Duration.ofSeconds(90));
        if (result.exitCode() != 0) {
            throw new IOException("pg_ctl start on port " + port + " failed:\n" + result.output() + "\n"
                    + ServerProcess.tail(dir.resolve("postgres.log"), 30));
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            try (Connection connection = connect("postgres")) {
                if (connection.isValid(5)) {
                    return;
                }
            } catch (SQLException e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new IOException("PostgreSQL on port " + port + " accepts no connection:\n"
                + ServerProcess.tail(dir.resolve("postgres.log"), 30), last);
    }

    /** {@code pg_ctl stop -m immediate}, without an error when it is not running. */
    @Override
    public void close() {
        try {
            pgCtlStop("immediate");
        } catch (Exception e) {
            // closing: nothing left to do
        }
        ShutdownKills.unregister(this);
    }

    private void pgCtlStop(String mode) throws Exception {
        Commands.Result status = asPostgres(List.of(BIN + "pg_ctl", "status", "-D", data.toString()),
                Duration.ofSeconds(30));
        if (status.exitCode() != 0) {
            return; // not running
        }
        Commands.Result result = asPostgres(List.of(BIN + "pg_ctl", "stop", "-w", "-t", "60", "-m", mode,
                "-D", data.toString()), Duration.ofSeconds(90));
        if (result.exitCode() != 0) {
            throw new IOException("pg_ctl stop -m " + mode + " on port " + port + " failed:\n" + result.output());
        }
    }

    private void prepare() throws Exception {
        openPath(dir);
        Files.createDirectories(socketDir);
        chown(socketDir);
        if (Files.isRegularFile(data.resolve("PG_VERSION"))) {
            return;
        }
        Files.createDirectories(data);
        Files.setPosixFilePermissions(data, EnumSet.of(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
        chown(data);
        Commands.Result result = asPostgres(List.of(BIN + "initdb", "-D", data.toString(), "-U", OS_USER,
                "--auth=trust", "-E", "UTF8", "--locale=C", "--no-instructions"), Duration.ofSeconds(120));
        if (result.exitCode() != 0) {
            throw new IOException("initdb in " + data + " failed:\n" + result.output());
        }
    }

    /**
     * The user {@code postgres} must reach the cluster's directory: {@code dir} becomes its own, and
     * every directory above it that others cannot search gets the search bit (o+x, no read).
     */
    private void openPath(Path target) throws Exception {
        chown(target);
        for (Path p = target.getParent(); p != null; p = p.getParent()) {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(p);
            if (!permissions.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                Set<PosixFilePermission> more = EnumSet.copyOf(permissions);
                more.add(PosixFilePermission.OTHERS_EXECUTE);
                Files.setPosixFilePermissions(p, more);
            }
        }
    }

    private static void chown(Path path) throws Exception {
        Commands.run(List.of("chown", OS_USER + ":", path.toString()), Map.of(), null, Duration.ofSeconds(10));
    }

    private Commands.Result asPostgres(List<String> command, Duration timeout) throws Exception {
        List<String> full = new ArrayList<>(List.of("runuser", "-u", OS_USER, "--"));
        full.addAll(command);
        return Commands.tryRun(full, Map.of("LC_ALL", "C"), dir, timeout);
    }
}
