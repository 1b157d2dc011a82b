package com.example.orders;

import io.onlyonce.spring.Idempotent;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@SpringBootApplication
public class OrderApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrderApplication.class, args);
    }
}

record OrderRequest(String item, int quantity) {
}

record Order(long id, String item, int quantity) {
}

@RestController
class OrderController {

    private final AtomicLong ids = new AtomicLong();

    @PostMapping("/orders")
    @Idempotent                      // Idempotency-Key header; the first answer is replayed for 24 h
    ResponseEntity<Order> create(@RequestBody OrderRequest request) {
        Order order = new Order(ids.incrementAndGet(), request.item(), request.quantity());
        return ResponseEntity.status(HttpStatus.CREATED).body(order);
    }
}
