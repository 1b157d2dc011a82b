package io.onlyonce.example.seckill.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium for the web page's tests: Debian's {@code chromium} and {@code chromium-driver}
 * ({@code scripts/test.sh} installs them), found at {@code /usr/bin/chromium} and
 * {@code /usr/bin/chromedriver} or where {@code CHROME_BIN} and {@code CHROMEDRIVER} say. Nothing is
 * downloaded: without them the tests fail and say what to install.
 */
public final class Browsers {

    private Browsers() {
    }

    /**
     * A new headless browser whose language ({@code navigator.language}, {@code Accept-Language}) is
     * {@code language}, e.g. {@code en-US} or {@code zh-CN}.
     */
    public static ChromeDriver start(String language) {
        Path binary = Path.of(env("CHROME_BIN", "/usr/bin/chromium"));
        Path driver = Path.of(env("CHROMEDRIVER", "/usr/bin/chromedriver"));
        if (!Files.isExecutable(binary) || !Files.isExecutable(driver)) {
            throw new IllegalStateException("the browser tests need Chromium and its driver at " + binary + " and " + driver
                    + " (apt-get install chromium chromium-driver, or set CHROME_BIN and CHROMEDRIVER)");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(binary.toFile());
        // --no-sandbox: Chromium refuses to start as root with its sandbox, as in a CI container
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--no-first-run", "--disable-extensions", "--window-size=1280,1000", "--lang=" + language);
        options.setExperimentalOption("prefs", Map.of("intl.accept_languages", language));
        options.setExperimentalOption("excludeSwitches", List.of("enable-automation"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.toFile())
                .usingAnyFreePort().withLogOutput(java.io.OutputStream.nullOutputStream()).build();
        ChromeDriver browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return browser;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
