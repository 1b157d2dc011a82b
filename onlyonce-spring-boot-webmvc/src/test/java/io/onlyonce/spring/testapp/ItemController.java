package io.onlyonce.spring.testapp;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** An unprotected endpoint (no {@code @Idempotent}) for the request de-dup filter tests. */
@RestController
public class ItemController {

    private final AtomicInteger executions = new AtomicInteger();

    public int executions() {
        return executions.get();
    }

    public void reset() {
        executions.set(0);
    }

    @PostMapping(path = "/items/form", consumes = "application/x-www-form-urlencoded")
    @ResponseStatus(HttpStatus.CREATED)
    public Map<String, Object> addFromForm(@RequestParam("item") String item) {
        return Map.of("n", executions.incrementAndGet(), "item", item);
    }

    @PostMapping(path = "/uploads", consumes = "multipart/form-data")
    @ResponseStatus(HttpStatus.CREATED)
    public Map<String, Object> upload(@org.springframework.web.bind.annotation.RequestPart("file")
            org.springframework.web.multipart.MultipartFile file) throws java.io.IOException {
        return Map.of("n", executions.incrementAndGet(), "size", file.getSize(), "name", file.getOriginalFilename());
    }

    @PostMapping(path = "/uploads/raw", consumes = "application/octet-stream")
    @ResponseStatus(HttpStatus.CREATED)
    public Map<String, Object> raw(java.io.InputStream body) throws java.io.IOException {
        byte[] bytes = body.readAllBytes();
        return Map.of("n", executions.incrementAndGet(), "length", bytes.length, "last", bytes.length == 0 ? -1 : bytes[bytes.length - 1]);
    }

    @PostMapping("/items")
    @ResponseStatus(HttpStatus.CREATED)
    public Map<String, Object> add(@RequestBody Map<String, Object> item) {
        return Map.of("n", executions.incrementAndGet(), "item", item);
    }
}
