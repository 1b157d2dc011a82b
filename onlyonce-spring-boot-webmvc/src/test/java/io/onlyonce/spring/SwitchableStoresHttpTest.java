package io.onlyonce.spring;

import io.onlyonce.spring.testapp.TestApplication;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * One application context for the tests that need stores failing on demand and the de-dup filter
 * (rules on {@code /orders/**} and, by principal and item, on {@code /items/**}), shared by every
 * class so annotated. The circuit breaker is off so that a failing test cannot open it for the next.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "onlyonce.circuit-breaker.enabled=false",
    "onlyonce.dedup.enabled=true",
    "onlyonce.dedup.rules[0].pattern=/orders/**",
    "onlyonce.dedup.rules[0].window=2s",
    "onlyonce.dedup.rules[1].pattern=/items/**",
    "onlyonce.dedup.rules[1].window=2s",
    "onlyonce.dedup.rules[1].fields=principal,body:item",
    "onlyonce.dedup.rules[2].pattern=/uploads/**",
    "onlyonce.dedup.rules[2].window=2s",
    "onlyonce.key.max-body-size=3MB",
    "spring.servlet.multipart.max-file-size=3MB",
    "spring.servlet.multipart.max-request-size=4MB"
})
@Import(SwitchableStores.class)
@interface SwitchableStoresHttpTest {
}
