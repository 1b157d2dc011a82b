package io.onlyonce.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JdbcStoreConfigTest {

    @Test
    void defaultsAreTheScriptNames() {
        assertThat(JdbcStoreConfig.defaults())
                .isEqualTo(new JdbcStoreConfig("onlyonce_idempotency", "onlyonce_token", "onlyonce_window"));
    }

    @Test
    void copiesChangeOneName() {
        JdbcStoreConfig config = JdbcStoreConfig.defaults().withIdempotencyTable("a").withTokenTable("B_2").withWindowTable("_c");
        assertThat(config).isEqualTo(new JdbcStoreConfig("a", "B_2", "_c"));
        assertThat(JdbcStoreConfig.defaults().idempotencyTable()).isEqualTo("onlyonce_idempotency");
    }

    @Test
    void namesUpTo63CharactersAreAccepted() {
        String longest = "t".repeat(63);
        assertThat(JdbcStoreConfig.defaults().withWindowTable(longest).windowTable()).isEqualTo(longest);
        assertThatThrownBy(() -> JdbcStoreConfig.defaults().withWindowTable(longest + "t"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1table", "my-table", "schema.table", "my table", "t;DROP TABLE x", "\"quoted\"", "tablé"})
    void namesThatAreNotPlainIdentifiersAreRefused(String name) {
        assertThatThrownBy(() -> JdbcStoreConfig.defaults().withTokenTable(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tokenTable");
    }

    @Test
    void equalNamesAreRefusedIgnoringCase() {
        assertThatThrownBy(() -> new JdbcStoreConfig("same", "SAME", "other")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JdbcStoreConfig("one", "two", "One")).isInstanceOf(IllegalArgumentException.class);
    }
}
