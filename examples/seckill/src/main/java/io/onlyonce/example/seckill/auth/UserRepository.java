package io.onlyonce.example.seckill.auth;

import io.onlyonce.example.seckill.db.SqlDialect;
import java.time.Clock;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Users: one row per user name, with an id made on first login and stable ever after. */
@Repository
public class UserRepository {

    private final JdbcClient jdbc;
    private final SqlDialect dialect;
    private final Clock clock;

    public UserRepository(JdbcClient jdbc, SqlDialect dialect, Clock clock) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.clock = clock;
    }

    /** The id of {@code username}, creating the user on first sight (safe under concurrent first logins). */
    public long idOf(String username) {
        Optional<Long> existing = find(username);
        if (existing.isPresent()) {
            return existing.get();
        }
        dialect.insertIfAbsent(jdbc, "users", "username, created_at", "?, ?", username, clock.millis());
        return find(username).orElseThrow(() -> new IllegalStateException("user row missing after insert"));
    }

    /** The name of the user {@code id}, or empty when there is no such user. */
    public Optional<String> usernameOf(long id) {
        return jdbc.sql("SELECT username FROM users WHERE id = ?").param(id).query(String.class).optional();
    }

    /**
     * Locks the row of user {@code id} until the transaction ends, so that one user's orders are
     * placed one after the other (the per-user purchase limits count under this lock).
     *
     * @return false when there is no such user
     */
    public boolean lock(long id) {
        return jdbc.sql("SELECT id FROM users WHERE id = ? FOR UPDATE").param(id).query(Long.class).optional().isPresent();
    }

    private Optional<Long> find(String username) {
        return jdbc.sql("SELECT id FROM users WHERE username = ?").param(username).query(Long.class).optional();
    }
}
