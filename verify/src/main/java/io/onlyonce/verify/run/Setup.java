package io.onlyonce.verify.run;

import io.onlyonce.verify.workload.Answer;
import io.onlyonce.verify.workload.Api;
import io.onlyonce.verify.workload.Workload;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The run's data: users logged in through the gateway (the password-less login), regular products
 * (two with plenty of stock, one that sells out) and two flash sales, written into the database.
 */
final class Setup {

    final List<Workload.User> users = new ArrayList<>();
    final List<Workload.Product> products = new ArrayList<>();
    final List<Workload.Sale> sales = new ArrayList<>();

    static Setup create(Cluster cluster, Api api, long seed, int clients, int saleCount) throws Exception {
        Setup setup = new Setup();
        long base = 7_000_000L + Math.floorMod(seed, 1_000_000L) * 1_000;
        setup.products.add(new Workload.Product(base + 1, 1_000_000, "3.10"));
        setup.products.add(new Workload.Product(base + 2, 1_000_000, "12.50"));
        setup.products.add(new Workload.Product(base + 3, 150, "0.99"));
        // one flash sale a minute, each with fewer units than buyers: every one sells out
        for (int i = 0; i < saleCount; i++) {
            setup.sales.add(new Workload.Sale(base + 10 + 2L * i, base + 11 + 2L * i, Math.max(4, clients * 2 / 3),
                    i % 2 == 0 ? "1.00" : "2.00"));
        }
        long now = System.currentTimeMillis();
        try (Connection db = cluster.database()) {
            try (PreparedStatement insert = db.prepareStatement("INSERT INTO products (id, name, price, stock) VALUES (?, ?, ?::numeric, ?)")) {
                for (Workload.Product p : setup.products) {
                    insert.setLong(1, p.id());
                    insert.setString(2, "verify product " + p.id());
                    insert.setString(3, p.price());
                    insert.setInt(4, p.stock());
                    insert.executeUpdate();
                }
                for (Workload.Sale s : setup.sales) {
                    insert.setLong(1, s.productId());
                    insert.setString(2, "verify sale product " + s.productId());
                    insert.setString(3, "99.00");
                    insert.setInt(4, 0);
                    insert.executeUpdate();
                }
            }
            try (PreparedStatement activity = db.prepareStatement(
                    "INSERT INTO seckill_activities (id, name, starts_at, ends_at) VALUES (?, ?, ?, ?)");
                 PreparedStatement stock = db.prepareStatement(
                    "INSERT INTO seckill_stock (activity_id, product_id, price, initial_stock, stock) VALUES (?, ?, ?::numeric, ?, ?)")) {
                for (Workload.Sale s : setup.sales) {
                    activity.setLong(1, s.id());
                    activity.setString(2, "verify sale " + s.id());
                    activity.setLong(3, now - 3_600_000L);
                    activity.setLong(4, now + 30L * 24 * 3_600_000L);
                    activity.executeUpdate();
                    stock.setLong(1, s.id());
                    stock.setLong(2, s.productId());
                    stock.setString(3, s.price());
                    stock.setInt(4, s.stock());
                    stock.setInt(5, s.stock());
                    stock.executeUpdate();
                }
            }
        }
        for (int i = 0; i < clients; i++) {
            String name = "v" + Math.floorMod(seed, 100_000L) + "u" + i;
            Answer login = null;
            for (int attempt = 0; attempt < 10 && (login == null || login.status() != 200); attempt++) {
                if (attempt > 0) {
                    Thread.sleep(500);
                }
                try {
                    login = api.post("/api/login", null, "{\"username\":\"" + name + "\"}", false);
                } catch (java.io.IOException slowFirstRequest) {
                    login = new Answer(0, "", false, slowFirstRequest.toString());
                }
            }
            if (login.status() != 200) {
                throw new CannotRun("login through the gateway failed: " + login.status() + " " + login.body());
            }
            setup.users.add(new Workload.User(name, Long.parseLong(login.text("userId")), login.text("accessToken")));
        }
        return setup;
    }

    /** The set-up record of the history. */
    Map<String, Object> record(Options options, List<Map<String, Object>> faults) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("seed", options.seed());
        value.put("minutes", options.minutes());
        value.put("breaks", options.breaks());
        value.put("leaseMs", Cluster.LEASE.toMillis());
        value.put("maxUnitsPerProduct", Workload.MAX_UNITS_PER_PRODUCT);
        value.put("maxUnpaidOrders", Workload.MAX_UNPAID);
        value.put("products", products.stream().map(p -> Map.<String, Object>of("id", p.id(), "stock", p.stock(), "price", p.price())).toList());
        value.put("activities", sales.stream().map(s -> Map.<String, Object>of("id", s.id(), "productId", s.productId(),
                "stock", s.stock(), "price", s.price(), "maxUnitsPerUser", 1)).toList());
        value.put("users", users.stream().map(u -> Map.<String, Object>of("name", u.name(), "id", u.id())).toList());
        value.put("faults", faults);
        return value;
    }
}
