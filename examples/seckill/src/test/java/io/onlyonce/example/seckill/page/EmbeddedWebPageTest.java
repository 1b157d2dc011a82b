package io.onlyonce.example.seckill.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.Browsers;
import io.onlyonce.example.seckill.support.Rows;
import io.onlyonce.example.seckill.support.TestClockConfiguration;
import io.onlyonce.testing.MutableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The user layer in a real headless Chromium, on the embedded default (H2,
 * in-memory stores, demo mode): what a person sees (text, the address bar) and what the database
 * holds afterwards. One service and one browser per language serve every test; each test logs in as
 * a new user. The service's clock stands still, so the 1 s request window stays shut until a test
 * moves the clock on.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.datasource.url=jdbc:h2:mem:seckill-webpage;DB_CLOSE_DELAY=-1",
            "seckill.order.sweeper-enabled=false",
            "logging.level.io.onlyonce.example.seckill.order.LoggingOrderEvents=WARN"})
@Import({TestClockConfiguration.class, EmbeddedWebPageTest.PageTestConfiguration.class})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EmbeddedWebPageTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    /** What the page says, per browser language. */
    private static final Map<String, Map<String, String>> TEXT = Map.of(
            "en-US", Map.of(
                    "buyNow", "Buy now",
                    "ordered", "Ordered",
                    "submitting", "Submitting…",
                    "soldOut", "Sold out: nothing left to buy.",
                    "window", "Too fast: the same purchase was just sent. Wait a second, then try again.",
                    "existingSale", "You already have an order in this sale: %s.",
                    "view", "View order",
                    "username", "User name",
                    "login", "Log in"),
            "zh-CN", Map.of(
                    "buyNow", "立即抢购",
                    "ordered", "已下单",
                    "submitting", "提交中...",
                    "soldOut", "已售罄，没有库存了。",
                    "window", "操作太快：同一请求刚刚已提交，请稍等一秒再试。",
                    "existingSale", "您在本次秒杀中已有订单：%s。",
                    "view", "查看订单",
                    "username", "用户名",
                    "login", "登录"));

    @TestConfiguration(proxyBeanMethods = false)
    static class PageTestConfiguration {

        @Bean
        PageTestFilter pageTestFilter() {
            return new PageTestFilter();
        }

        @Bean
        FilterRegistrationBean<PageTestFilter> pageTestFilterRegistration(PageTestFilter filter) {
            FilterRegistrationBean<PageTestFilter> registration = new FilterRegistrationBean<>(filter);
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
            return registration;
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    PageTestFilter server;

    private final String run = Long.toString(System.nanoTime() % 1_000_000, 36);
    private ChromeDriver english;
    private ChromeDriver chinese;
    private Api api;
    private Rows rows;
    private long product;
    private long sale;
    private long soldOutSale;

    @BeforeAll
    void start() {
        api = new Api(port);
        rows = new Rows(jdbc, clock);
        product = rows.createProduct("99.00", 50);
        sale = rows.createActivity(product, "9.90", 100);
        long sneakers = rows.createProduct("199.00", 5);
        soldOutSale = rows.createActivity(sneakers, "1.00", 0);
        // names a person can read on the screenshots
        jdbc.sql("UPDATE products SET name = ? WHERE id = ?").params("Smart watch", product).update();
        jdbc.sql("UPDATE products SET name = ? WHERE id = ?").params("Limited sneakers", sneakers).update();
        jdbc.sql("UPDATE seckill_activities SET name = ? WHERE id = ?").params("Flash sale: Smart watch", sale).update();
        jdbc.sql("UPDATE seckill_activities SET name = ? WHERE id = ?").params("Flash sale: Limited sneakers", soldOutSale)
                .update();
        english = Browsers.start("en-US");
    }

    @AfterAll
    void stop() {
        for (WebDriver browser : new WebDriver[] {english, chinese}) {
            if (browser != null) {
                browser.quit();
            }
        }
    }

    private ChromeDriver browser(String language) {
        if (language.startsWith("zh")) {
            if (chinese == null) {
                chinese = Browsers.start("zh-CN");
            }
            return chinese;
        }
        return english;
    }

    // ---- the button: disabled from click to answer, one order however often it is clicked

    @Test
    void aDoubleClickMakesOneOrder() {
        String user = login(english, "double");
        int tokens = server.tokenRequests.get();
        int orders = server.orderRequests.get();
        server.delayNextOrder(Duration.ofSeconds(2));
        WebElement buy = buyButton(english, sale);

        new Actions(english).doubleClick(buy).perform();

        assertBusy(buy, "en-US");
        String orderNo = resultPage(english);
        assertThat(ordersOf(user)).containsExactly(orderNo);
        assertThat(server.tokenRequests.get() - tokens).as("token requests").isEqualTo(1);
        assertThat(server.orderRequests.get() - orders).as("order requests").isEqualTo(1);
    }

    @Test
    void tenRapidClicksMakeOneOrder() {
        String user = login(english, "ten");
        int orders = server.orderRequests.get();
        server.delayNextOrder(Duration.ofSeconds(2));
        WebElement buy = buyButton(english, sale);

        Actions clicks = new Actions(english).moveToElement(buy);
        for (int i = 0; i < 10; i++) {
            clicks.click();
        }
        clicks.perform();

        assertBusy(buy, "en-US");
        String orderNo = resultPage(english);
        assertThat(text(english, "result-message")).isEqualTo("Order placed");
        assertThat(ordersOf(user)).containsExactly(orderNo);
        assertThat(server.orderRequests.get() - orders).as("order requests").isEqualTo(1);
    }

    @Test
    void aSlowAnswerWhileTheUserReloadsShowsTheOrderAndMakesOneOrder() {
        String user = login(english, "slow");
        int tokens = server.tokenRequests.get();
        int orders = server.orderRequests.get();
        server.delayNextOrder(Duration.ofSeconds(4));
        WebElement buy = buyButton(english, sale);

        buy.click();
        assertBusy(buy, "en-US");
        new WebDriverWait(english, WAIT).until(d -> server.orderRequests.get() - orders == 1);
        String orderNo = new WebDriverWait(english, WAIT).until(d -> ordersOf(user).isEmpty() ? null : ordersOf(user).get(0));
        english.navigate().refresh();
        // the order was made, its answer is still on its way: the reloaded page shows the order from
        // the list and holds the sale's button, so the purchase kept for the retry is not sent again
        WebElement held = buyButton(english, sale);
        new WebDriverWait(english, WAIT).until(d -> !held.isEnabled() && held.getText().equals("Ordered"));
        waitForText(english, "msg-" + sale + "-" + product, "You already have an order in this sale: " + orderNo + ". View order");
        assertThat(english.findElement(By.cssSelector("#msg-" + sale + "-" + product + " a")).getAttribute("href"))
                .endsWith("/order.html?orderNo=" + orderNo);
        held.click();
        assertThat((String) english.executeScript("return Object.keys(sessionStorage).filter(k => k.includes('.seckill.')).join()"))
                .as("the purchase intent ended with its order").isEmpty();
        assertThat(ordersOf(user)).containsExactly(orderNo);
        assertThat(server.tokenRequests.get() - tokens).as("one token for the one intent").isEqualTo(1);
        assertThat(server.orderRequests.get() - orders).as("no order request after the reload").isEqualTo(1);
    }

    @Test
    void aFailedAttemptIsRetriedWithTheSameTokenAndAnExpiredOneIsSaidSo() {
        String user = login(english, "retry");
        int tokens = server.tokenRequests.get();
        int orders = server.orderRequests.get();
        String message = "msg-" + sale + "-" + product;
        server.failNextOrders(3);

        buyButton(english, sale).click();
        waitForText(english, message, "No answer from the service. Your purchase is kept: click again to retry it safely"
                + " (it will not order twice).");
        assertThat(buyButton(english, sale).isEnabled()).as("the button is back after the failure").isTrue();
        assertThat(server.orderRequests.get() - orders).as("the page retried twice by itself").isEqualTo(3);
        assertThat(ordersOf(user)).isEmpty();

        // the user comes back after the token's 10 minutes: the retry says so, and the next click starts afresh
        clock.advance(Duration.ofMinutes(11));
        buyButton(english, sale).click();
        waitForText(english, message, "Your purchase ticket expired or is no longer valid. Click \"Buy now\" again.");
        assertThat(server.tokenRequests.get() - tokens).as("every retry sent the intent's one token").isEqualTo(1);
        clock.advance(Duration.ofSeconds(2));
        buyButton(english, sale).click();

        String orderNo = resultPage(english);
        assertThat(ordersOf(user)).containsExactly(orderNo);
        assertThat(server.tokenRequests.get() - tokens).isEqualTo(2);
    }

    // ---- Post/Redirect/Get

    @Test
    void reloadingTheResultPageOrGoingBackNeverOrdersAgain() {
        String user = login(english, "prg");
        int orders = server.orderRequests.get();
        buyButton(english, sale).click();
        String orderNo = resultPage(english);
        String resultUrl = english.getCurrentUrl();

        english.navigate().refresh();
        waitForText(english, "order-no", orderNo);
        english.navigate().back();
        // back on the sale: the button says the order is there, and no click can spend a token on it
        WebElement buy = buyButton(english, sale);
        new WebDriverWait(english, WAIT).until(d -> !buy.isEnabled() && buy.getText().equals("Ordered"));
        waitForText(english, "msg-" + sale + "-" + product, "You already have an order in this sale: " + orderNo + ". View order");
        english.navigate().forward();
        waitForText(english, "order-no", orderNo);

        assertThat(english.getCurrentUrl()).isEqualTo(resultUrl).contains("/order.html?orderNo=" + orderNo);
        assertThat(ordersOf(user)).containsExactly(orderNo);
        assertThat(server.orderRequests.get() - orders).isEqualTo(1);
    }

    @Test
    void aQueuedPurchaseIsFollowedUntilItIsAnOrder() {
        String user = login(english, "queued");
        server.queueNextOrder();

        buyButton(english, sale).click();

        new WebDriverWait(english, WAIT).until(ExpectedConditions.urlContains("/order.html?reservation=r-"));
        String reservation = english.getCurrentUrl().substring(english.getCurrentUrl().indexOf("reservation=") + 12);
        String orderNo = resultPage(english);
        assertThat(server.polls(reservation)).as("asked while QUEUED, then ORDERED").isEqualTo(2);
        assertThat(ordersOf(user)).containsExactly(orderNo);
    }

    @Test
    void aQueuedPurchaseThatFailsSaysWhy() {
        String user = login(english, "queuefail");
        server.failNextReservation("sold-out");

        buyButton(english, sale).click();

        new WebDriverWait(english, WAIT).until(ExpectedConditions.urlContains("/order.html?reservation=r-"));
        waitForText(english, "result-title", "Queued");
        waitForText(english, "result-title", "Not ordered");
        assertThat(text(english, "result-message")).isEqualTo("Sold out: nothing left to buy.");
        assertThat(ordersOf(user)).isEmpty();
    }

    @Test
    void aSaleOrderHeldKeepsItsButtonDisabledUntilItIsCancelled() {
        String user = login(english, "held");
        int tokens = server.tokenRequests.get();
        buyButton(english, sale).click();
        String orderNo = resultPage(english);
        english.get(base() + "/");
        WebElement buy = buyButton(english, sale);
        new WebDriverWait(english, WAIT).until(d -> !buy.isEnabled() && buy.getText().equals("Ordered"));
        String message = "msg-" + sale + "-" + product;
        waitForText(english, message, "You already have an order in this sale: " + orderNo + ". View order");
        new Actions(english).moveToElement(buy).click().click().perform();
        assertThat(server.tokenRequests.get() - tokens).as("no token spent on a held sale").isEqualTo(1);

        new WebDriverWait(english, WAIT).until(ExpectedConditions.elementToBeClickable(By.id("cancel-" + orderNo))).click();
        waitForText(english, "orders-message", "Order cancelled.");
        new WebDriverWait(english, WAIT).until(d -> buy.isEnabled() && buy.getText().equals("Buy now"));
        assertThat(text(english, message)).isEmpty();
        clock.advance(Duration.ofSeconds(2));
        buy.click();
        String again = resultPage(english);
        assertThat(again).isNotEqualTo(orderNo);
        assertThat(ordersOf(user)).containsExactlyInAnyOrder(orderNo, again);
        assertThat(rows.status(orderNo)).isEqualTo("CANCELLED");
    }

    @Test
    void aRegularOrderTakesItsBusinessIdFromTheServiceAndMakesOneWhenTheServiceIsDown() {
        String user = login(english, "ids");
        long userId = rows.count("SELECT id FROM users WHERE username = ?", user);
        int ids = server.idRequests.get();
        new WebDriverWait(english, WAIT).until(ExpectedConditions.elementToBeClickable(By.id("order-" + product))).click();
        String first = resultPage(english);
        assertThat(server.idRequests.get() - ids).isEqualTo(1);
        assertThat(businessIdOf(first)).as("made by the service: scope letter o, then its node and counter")
                .matches("u" + userId + "_[0-9]{13}_o[0-9A-Za-z]{5}");

        server.failNextIds.set(1);
        english.get(base() + "/");
        clock.advance(Duration.ofSeconds(2));
        new WebDriverWait(english, WAIT).until(ExpectedConditions.elementToBeClickable(By.id("order-" + product))).click();
        String second = resultPage(english);
        assertThat(server.idRequests.get() - ids).isEqualTo(2);
        assertThat(businessIdOf(second)).as("made by the page, in the same form").matches("u" + userId + "_[0-9]{13}_[0-9A-Za-z]{6}");
        assertThat(ordersOf(user)).containsExactlyInAnyOrder(first, second);
    }

    private String businessIdOf(String orderNo) {
        return jdbc.sql("SELECT business_id FROM orders WHERE order_no = ?").param(orderNo).query(String.class).single();
    }

    // ---- refusals, by problem type, in the browser's language

    @ParameterizedTest
    @ValueSource(strings = {"en-US", "zh-CN"})
    void soldOutRateLimitedAndDuplicateAnswersAreExplained(String language) {
        ChromeDriver browser = browser(language);
        Map<String, String> text = TEXT.get(language);
        String user = login(browser, "lang");
        assertThat(browser.findElement(By.cssSelector("label[for=username]")).getDomProperty("textContent"))
                .isEqualTo(text.get("username"));
        assertThat(browser.findElement(By.id("login-button")).getDomProperty("textContent")).isEqualTo(text.get("login"));

        // sold out (409 sold-out): a message, the button back, no order
        WebElement soldOut = buyButton(browser, soldOutSale);
        assertThat(soldOut.getText()).isEqualTo(text.get("buyNow"));
        soldOut.click();
        waitForText(browser, "msg-" + soldOutSale + "-" + productOf(soldOutSale), text.get("soldOut"));
        assertThat(soldOut.isEnabled()).isTrue();

        // rate limited (429 duplicate-request from the request window): the same user just asked
        // for a token of this sale elsewhere
        api.token(api.login(user), sale);
        buyButton(browser, sale).click();
        waitForText(browser, "msg-" + sale + "-" + product, text.get("window"));
        assertThat(ordersOf(user)).isEmpty();

        // a duplicate (409 live-order-exists): the existing order with its link, not an error
        clock.advance(Duration.ofSeconds(2));
        buyButton(browser, sale).click();
        String orderNo = resultPage(browser);
        browser.navigate().back();
        WebElement held = buyButton(browser, sale);
        new WebDriverWait(browser, WAIT).until(d -> !held.isEnabled() && held.getText().equals(text.get("ordered")));
        String message = "msg-" + sale + "-" + product;
        waitForText(browser, message, text.get("existingSale").formatted(orderNo) + " " + text.get("view"));
        assertThat(browser.findElement(By.id(message)).getAttribute("class")).contains("ok").doesNotContain("error");
        save(browser, "messages-" + language);
        browser.findElement(By.cssSelector("#" + message + " a")).click();
        waitForText(browser, "order-no", orderNo);
        assertThat(ordersOf(user)).containsExactly(orderNo);

        // the live panel shows which layer stopped what: the same user buying again through the API
        // (another device) is stopped by the database's one live order per user and sale
        clock.advance(Duration.ofSeconds(2));
        Api.Session device = api.login(user);
        Api.Response again = api.seckill(device, sale, api.token(device, sale));
        assertThat(again.problem()).as(again.toString()).isEqualTo("live-order-exists");
        browser.navigate().back();
        new WebDriverWait(browser, WAIT).until(d -> count(d, "stat-gateway") > 0 && count(d, "stat-data") > 0);
    }

    // ---- my orders: pay (demo mode), cancel

    @Test
    void simulatedPaymentAndCancelFromThePage() {
        String user = login(english, "pay");
        buyButton(english, sale).click();
        String paid = resultPage(english);
        english.findElement(By.id("pay-button")).click();
        waitForText(english, "order-status", "Paid");
        assertThat(text(english, "result-message")).isEqualTo("Paid. Thank you!");
        assertThat(rows.status(paid)).isEqualTo("PAID");
        assertThat(rows.count("SELECT COUNT(*) FROM payment_notifications WHERE order_no = ?", paid)).isEqualTo(1);

        english.navigate().back();
        new WebDriverWait(english, WAIT).until(ExpectedConditions.elementToBeClickable(By.id("order-" + product))).click();
        String cancelled = resultPage(english);
        english.navigate().back();
        WebElement cancel = new WebDriverWait(english, WAIT)
                .until(ExpectedConditions.elementToBeClickable(By.id("cancel-" + cancelled)));
        cancel.click();
        waitForText(english, "orders-message", "Order cancelled.");
        assertThat(rows.status(cancelled)).isEqualTo("CANCELLED");
        new WebDriverWait(english, WAIT).until(ExpectedConditions.textToBe(
                By.cssSelector("tr[data-order-no='" + cancelled + "'] .status"), "Cancelled"));

        // the demo payment is for one's own orders only
        Api.Response other = api.post("/api/demo/orders/" + cancelled + "/pay", api.login(user + "x"), null);
        assertThat(other.status()).isEqualTo(404);
        assertThat(rows.status(cancelled)).isEqualTo("CANCELLED");
        assertThat(ordersOf(user)).containsExactlyInAnyOrder(paid, cancelled);
    }

    // ---- security

    @Test
    void thePageIsOpenWithoutLoginRunsOnlyItsOwnScriptsAndShowsDataAsText() {
        Api.Response page = api.get("/", null);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).startsWith("text/html");
        assertThat(page.header("Content-Security-Policy")).contains("script-src 'self'", "object-src 'none'");
        assertThat(api.get("/order.html", null).status()).isEqualTo(200);
        assertThat(api.get("/api/orders", null).status()).isEqualTo(401);
        // HEAD as GET (link checkers, uptime probes)
        Api.Response head = api.send(api.request("HEAD", "/", null, null));
        assertThat(head.status()).isEqualTo(200);
        assertThat(head.header("Content-Type")).startsWith("text/html");
        assertThat(api.send(api.request("HEAD", "/assets/app.css", null, null)).status()).isEqualTo(200);
        assertThat(api.send(api.request("HEAD", "/api/orders", null, null)).status()).isEqualTo(401);

        long id = rows.createProduct("1.00", 1);
        String markup = "<img id=\"xss\" src=\"x\" onerror=\"document.title='owned'\">";
        jdbc.sql("UPDATE products SET name = ? WHERE id = ?").params(markup, id).update();
        try {
            login(english, "xss");
            WebElement title = new WebDriverWait(english, WAIT)
                    .until(ExpectedConditions.visibilityOfElementLocated(By.id("product-" + id + "-title")));
            assertThat(title.getText()).isEqualTo(markup);
            assertThat(english.findElements(By.id("xss"))).isEmpty();
            assertThat(english.getTitle()).isNotEqualTo("owned");
            assertThat((String) english.executeScript("return sessionStorage.getItem('oo.session')")).contains("accessToken");
            assertThat(english.manage().getCookies()).isEmpty();
        } finally {
            jdbc.sql("DELETE FROM products WHERE id = ?").param(id).update();
        }
    }

    // ---- keyboard only, phone size, screenshots

    @Test
    void aKeyboardAloneCanLogInAndBuy() {
        english.get(base() + "/");
        english.executeScript("sessionStorage.clear()");
        english.navigate().refresh();
        String user = user("keys");
        WebElement name = new WebDriverWait(english, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
        assertThat(english.switchTo().activeElement()).isEqualTo(name);
        name.sendKeys(user, Keys.ENTER);
        buyButton(english, sale);
        String target = "buy-" + sale + "-" + product;
        for (int i = 0; i < 20 && !target.equals(english.switchTo().activeElement().getAttribute("id")); i++) {
            new Actions(english).sendKeys(Keys.TAB).perform();
        }
        assertThat(english.switchTo().activeElement().getAttribute("id")).isEqualTo(target);
        new Actions(english).sendKeys(Keys.ENTER).perform();
        String orderNo = resultPage(english);
        assertThat(ordersOf(user)).containsExactly(orderNo);
    }

    @Test
    void logOutShowsOnlyWhileLoggedIn() {
        english.get(base() + "/");
        english.executeScript("sessionStorage.clear()");
        english.navigate().refresh();
        new WebDriverWait(english, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
        assertThat(english.findElement(By.id("logout-button")).isDisplayed()).as("logged out").isFalse();
        login(english, "logout");
        assertThat(english.findElement(By.id("logout-button")).isDisplayed()).as("logged in").isTrue();
        english.findElement(By.id("logout-button")).click();
        new WebDriverWait(english, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
        assertThat(english.findElement(By.id("logout-button")).isDisplayed()).as("logged out again").isFalse();
        assertThat(english.findElement(By.id("user-name")).isDisplayed()).isFalse();
    }

    @Test
    void theFlashPriceStandsBesideTheRegularOneAndTheSaleCountsDownToItsEnd() {
        long watch = rows.createProduct("120.00", 10);
        long ending = rows.createActivity(watch, "60.00", 10);
        jdbc.sql("UPDATE seckill_activities SET ends_at = ? WHERE id = ?")
                .params(clock.instant().plusSeconds(4).toEpochMilli(), ending).update();
        login(english, "countdown");
        String card = "sale-" + ending + "-" + watch;
        WebElement buy = buyButton(english, ending);
        assertThat(text(english, card + "-price")).startsWith("¥ 60.00");
        assertThat(text(english, card + "-regular")).isEqualTo("Regular price ¥ 120.00");
        assertThat(text(english, card + "-ends")).matches("Ends in 00:00:0[0-4]");
        assertThat(text(english, "sale-" + sale + "-" + product + "-ends")).matches("Ends in (29|30) d \\d\\d:\\d\\d:\\d\\d");
        assertThat(buy.isEnabled()).isTrue();

        // the service's clock (the test's, which stands still unless moved) passes the end
        clock.advance(Duration.ofSeconds(5));
        new WebDriverWait(english, Duration.ofSeconds(15)).until(d -> !buy.isEnabled());
        assertThat(buy.getText()).isEqualTo("The sale has ended");
        assertThat(text(english, card + "-ends")).isEqualTo("The sale has ended");
    }

    @Test
    void screenshotsOfBothPagesOnADesktopAndAPhone() {
        login(english, "shot");
        try {
            english.manage().window().setSize(new Dimension(1280, 1000));
            buyButton(english, sale).click();
            String orderNo = resultPage(english);
            String resultUrl = english.getCurrentUrl();
            save(english, "result-desktop");
            english.manage().window().setSize(new Dimension(1280, 1500));
            english.get(base() + "/");
            new WebDriverWait(english, WAIT).until(ExpectedConditions.textToBe(
                    By.cssSelector("tr[data-order-no='" + orderNo + "'] .status"), "Unpaid"));
            waitForText(english, "stat-oversell", "OK");
            assertThat(fitsTheWidth(english)).as("no sideways scrolling on a desktop").isTrue();
            save(english, "main-desktop");

            english.manage().window().setSize(new Dimension(390, 844));
            english.get(base() + "/");
            buyButton(english, sale);
            waitForText(english, "stat-oversell", "OK");
            assertThat(fitsTheWidth(english)).as("no sideways scrolling on a phone").isTrue();
            // the unpaid order's buttons are whole on the screen, not cut off by the table
            new WebDriverWait(english, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("cancel-" + orderNo)));
            for (String button : List.of("pay-" + orderNo, "cancel-" + orderNo)) {
                Object inside = english.executeScript("const r = document.getElementById(arguments[0]).getBoundingClientRect();"
                        + " const wrap = document.querySelector('.table-wrap');"
                        + " return r.left >= 0 && r.right <= window.innerWidth && r.width > 0"
                        + " && wrap.scrollWidth <= wrap.clientWidth;", button);
                assertThat(inside).as(button + " within the phone's width").isEqualTo(true);
            }
            save(english, "main-phone");
            english.get(resultUrl);
            assertThat(resultPage(english)).isEqualTo(orderNo);
            assertThat(fitsTheWidth(english)).as("no sideways scrolling on a phone").isTrue();
            save(english, "result-phone");
        } finally {
            english.manage().window().setSize(new Dimension(1280, 1000));
        }
        for (String name : List.of("main-desktop", "main-phone", "result-desktop", "result-phone")) {
            assertThat(SCREENSHOTS.resolve(name + ".png")).isNotEmptyFile();
        }
    }

    // ---- helpers

    private String base() {
        return "http://127.0.0.1:" + port;
    }

    private String user(String prefix) {
        return "web-" + prefix + "-" + run + "-" + UUID.randomUUID().toString().substring(0, 6);
    }

    /** Logs a new user in through the page's form; answers the user name. */
    private String login(ChromeDriver browser, String prefix) {
        String user = user(prefix);
        browser.get(base() + "/");
        browser.executeScript("sessionStorage.clear()");
        browser.navigate().refresh();
        WebElement name = new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(By.id("username")));
        name.sendKeys(user);
        browser.findElement(By.id("login-button")).click();
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBe(By.id("user-name"), user));
        return user;
    }

    private WebElement buyButton(WebDriver browser, long activity) {
        return new WebDriverWait(browser, WAIT).until(ExpectedConditions.visibilityOfElementLocated(
                By.id("buy-" + activity + "-" + productOf(activity))));
    }

    private long productOf(long activity) {
        return rows.count("SELECT product_id FROM seckill_stock WHERE activity_id = ?", activity);
    }

    private static void assertBusy(WebElement button, String language) {
        assertThat(button.isEnabled()).as("disabled while the purchase is in flight").isFalse();
        assertThat(button.getText()).isEqualTo(TEXT.get(language).get("submitting"));
    }

    /** Waits for the result page of an order; answers its order number as the page shows it. */
    private String resultPage(WebDriver browser) {
        new WebDriverWait(browser, WAIT).until(ExpectedConditions.urlContains("/order.html?orderNo="));
        WebElement orderNo = new WebDriverWait(browser, WAIT).until(
                ExpectedConditions.visibilityOfElementLocated(By.id("order-no")));
        new WebDriverWait(browser, WAIT).until(d -> !orderNo.getText().isEmpty());
        return orderNo.getText();
    }

    private void waitForText(WebDriver browser, String id, String expected) {
        try {
            new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBe(By.id(id), expected));
        } catch (org.openqa.selenium.TimeoutException e) {
            assertThat(browser.findElement(By.id(id)).getText()).as("#" + id).isEqualTo(expected);
        }
    }

    private static String text(WebDriver browser, String id) {
        return browser.findElement(By.id(id)).getText();
    }

    private static long count(WebDriver browser, String id) {
        String value = browser.findElement(By.id(id)).getText();
        return value.matches("\\d+") ? Long.parseLong(value) : -1;
    }

    /** The orders of {@code user} in the database, oldest first. */
    private List<String> ordersOf(String user) {
        return jdbc.sql("SELECT o.order_no FROM orders o JOIN users u ON u.id = o.user_id WHERE u.username = ? ORDER BY o.id")
                .param(user.toLowerCase(java.util.Locale.ROOT)).query(String.class).list();
    }

    private static boolean fitsTheWidth(JavascriptExecutor browser) {
        return (Boolean) browser.executeScript(
                "return document.documentElement.scrollWidth <= window.innerWidth;");
    }

    private static void save(ChromeDriver browser, String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Files.write(SCREENSHOTS.resolve(name + ".png"), browser.getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
