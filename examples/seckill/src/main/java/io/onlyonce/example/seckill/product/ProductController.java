package io.onlyonce.example.seckill.product;

import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/products}: the catalogue with its regular stock. */
@RestController
public class ProductController {

    private final ProductRepository products;

    public ProductController(ProductRepository products) {
        this.products = products;
    }

    @GetMapping("/api/products")
    public List<Product> list() {
        return products.findAll();
    }
}
