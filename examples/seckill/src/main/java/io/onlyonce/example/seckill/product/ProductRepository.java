package io.onlyonce.example.seckill.product;

import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The catalogue and its regular stock. */
@Repository
public class ProductRepository {

    private static final RowMapper<Product> MAPPER = (rs, row) -> new Product(rs.getLong("id"), rs.getString("name"),
            rs.getBigDecimal("price"), rs.getInt("stock"));

    private final JdbcClient jdbc;

    public ProductRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public List<Product> findAll() {
        return jdbc.sql("SELECT id, name, price, stock FROM products ORDER BY id").query(MAPPER).list();
    }

    public Optional<Product> find(long id) {
        return jdbc.sql("SELECT id, name, price, stock FROM products WHERE id = ?").param(id).query(MAPPER).optional();
    }

    /** Takes {@code quantity} from the stock if that much is left: false (nothing changed) otherwise. */
    public boolean takeStock(long id, int quantity) {
        return jdbc.sql("UPDATE products SET stock = stock - ?, version = version + 1 WHERE id = ? AND stock >= ?")
                .params(quantity, id, quantity).update() == 1;
    }

    public void returnStock(long id, int quantity) {
        jdbc.sql("UPDATE products SET stock = stock + ?, version = version + 1 WHERE id = ?").params(quantity, id).update();
    }

    public void insert(Product product) {
        jdbc.sql("INSERT INTO products (id, name, price, stock) VALUES (?, ?, ?, ?)")
                .params(product.id(), product.name(), product.price(), product.stock()).update();
    }

    public long count() {
        return jdbc.sql("SELECT COUNT(*) FROM products").query(Long.class).single();
    }
}
