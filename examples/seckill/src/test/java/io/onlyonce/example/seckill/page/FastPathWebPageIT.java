package io.onlyonce.example.seckill.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Browsers;
import io.onlyonce.example.seckill.support.PostgresAndRedis;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The web page on the real fast path (PostgreSQL and Redis, the {@code redis} profile): a double
 * click on "Buy now" is one purchase answered 202, the result page follows the reservation to its
 * order (one reservation, one row, made for that reservation); reloading changes nothing, and
 * buying again shows the order the buyer already has.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.order.sweeper-enabled=false"})
@ActiveProfiles({"postgres", "redis"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class FastPathWebPageIT {

    static final PostgresAndRedis SERVERS = PostgresAndRedis.fresh();
    static final Duration WAIT = Duration.ofSeconds(20);

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        SERVERS.register(registry);
    }

    @AfterAll
    static void drop() {
        SERVERS.drop();
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Test
    void aDoubleClickIsOneReservationFollowedToItsOrder() {
        ChromeDriver browser = Browsers.start("en-US");
        try {
            String user = "fastpage" + System.nanoTime() % 100_000;
            browser.get("http://127.0.0.1:" + port + "/");
            new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("username")))
                    .sendKeys(user);
            browser.findElement(By.id("login-button")).click();
            new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBe(By.id("user-name"), user));
            WebElement buy = new WebDriverWait(browser, WAIT).until(
                    ExpectedConditions.elementToBeClickable(By.id("buy-1-1")));

            new Actions(browser).doubleClick(buy).perform();

            // the 202's reservation page (order.html?reservation=...) replaces itself with the order's once it is written
            new WebDriverWait(browser, WAIT).until(ExpectedConditions.urlContains("/order.html?orderNo="));
            WebElement orderNo = new WebDriverWait(browser, WAIT).until(
                    ExpectedConditions.visibilityOfElementLocated(By.id("order-no")));
            new WebDriverWait(browser, WAIT).until(d -> !orderNo.getText().isEmpty());
            String order = orderNo.getText();

            assertThat(orders(user)).containsExactly(order);
            // made for a reservation of this sale and this buyer: the fast path wrote it
            assertThat(jdbc.sql("SELECT business_id FROM orders WHERE order_no = ?").param(order).query(String.class).single())
                    .matches("rsv_1-[0-9]+-" + userId(user) + "-[0-9A-Z]{13}");
            assertThat(jdbc.sql("SELECT COUNT(*) FROM seckill_reservations r JOIN users u ON u.id = r.user_id WHERE u.username = ?")
                    .param(user).query(Long.class).single()).isEqualTo(1);

            browser.navigate().refresh();
            new WebDriverWait(browser, WAIT).until(d -> !d.findElement(By.id("order-no")).getText().isEmpty());
            browser.navigate().back();
            browser.get("http://127.0.0.1:" + port + "/");
            // the sale's order is held: its button says so and links the order instead of buying again
            WebElement held = new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("buy-1-1")));
            new WebDriverWait(browser, WAIT).until(d -> !held.isEnabled() && held.getText().equals("Ordered"));
            new WebDriverWait(browser, WAIT).until(d -> d.findElement(By.id("msg-1-1")).getText().contains(order));
            assertThat(orders(user)).containsExactly(order);
        } finally {
            browser.quit();
        }
    }

    private long userId(String user) {
        return jdbc.sql("SELECT id FROM users WHERE username = ?").param(user).query(Long.class).single();
    }

    private List<String> orders(String user) {
        return jdbc.sql("SELECT o.order_no FROM orders o JOIN users u ON u.id = o.user_id WHERE u.username = ?")
                .param(user).query(String.class).list();
    }
}
