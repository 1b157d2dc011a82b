package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Per product and per sale, the initial stock (a sale's from the set-up, else from its stock row, which
 * must agree) is what the live orders hold plus what is left, and what is left is not below zero; Redis's stock of a sale equals the database's; per user and
 * product the live regular orders stay within the set-up's limit. Only the final read shows these,
 * so the anomalies point at it. A product or sale is the subject as {@code "product 5"} /
 * {@code "activity 7"}; {@code over-product-limit}'s subject is the user id.
 */
public final class StockChecker implements Checker {

    static final String NAME = "stock";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CheckResult check(History history) {
        Findings out = new Findings(NAME, "per product and sale: initial = sold + left, never below zero; Redis = database; per-user limits held");
        Optional<Op> read = history.finalRead();
        if (read.isEmpty()) {
            return out.noFinalRead();
        }
        FinalRead fin = new FinalRead(read.get());
        List<Long> at = List.of(fin.index());

        Map<String, Long> soldRegular = new HashMap<>();
        Map<String, Long> soldInSale = new HashMap<>();
        Map<String, Long> perUserProduct = new LinkedHashMap<>();
        for (Map<String, Object> row : fin.rows("orders")) {
            if (!Values.live(row)) {
                continue;
            }
            long units = Values.number(row, "quantity", 1);
            String activity = Values.text(row, "activityId");
            if (activity == null) {
                String product = Values.text(row, "productId");
                soldRegular.merge(product, units, Long::sum);
                perUserProduct.merge(Values.text(row, "userId") + "\u0000" + product, units, Long::sum);
            } else {
                soldInSale.merge(activity, units, Long::sum);
            }
        }

        Map<String, Long> left = new HashMap<>();
        for (Map<String, Object> row : fin.rows("products")) {
            left.put(Values.text(row, "id"), Values.number(row, "stock", 0));
        }
        Optional<Op> setup = history.setup();
        if (setup.isEmpty()) {
            out.noSetup();
        } else {
            List<Map<String, Object>> products = setup.get().rows("products");
            out.count("products", products.size());
            for (Map<String, Object> product : products) {
                String id = Values.text(product, "id");
                String subject = "product " + id;
                long initial = Values.number(product, "stock", 0);
                long sold = soldRegular.getOrDefault(id, 0L);
                Long stock = left.get(id);
                if (stock == null) {
                    out.anomaly("stock-not-conserved", subject, subject + " has no stock row in the final read", at);
                    continue;
                }
                conserved(out, subject, initial, sold, stock, at);
            }
        }

        // no redisStock at all: the sales ran without the fast path, there is no Redis stock to compare
        boolean fastPath = fin.op().value().containsKey("redisStock");
        Map<String, Long> redis = new HashMap<>();
        for (Map<String, Object> row : fin.rows("redisStock")) {
            if (row.get("stock") != null) {
                redis.put(Values.text(row, "activityId"), Values.number(row, "stock", 0));
            }
        }
        Map<String, Long> setUp = new HashMap<>();
        for (Map<String, Object> activity : setup.map(s -> s.rows("activities")).orElse(List.of())) {
            if (activity.get("stock") != null) {
                setUp.put(Values.text(activity, "id"), Values.number(activity, "stock", 0));
            }
        }
        List<Map<String, Object>> sales = fin.rows("activityStock");
        out.count("activities", sales.size());
        for (Map<String, Object> row : sales) {
            String id = Values.text(row, "activityId");
            String subject = "activity " + id;
            long stock = Values.number(row, "stock", 0);
            Long initial = setUp.get(id);
            if (initial == null) {
                initial = Values.number(row, "initialStock", 0);
            } else if (row.get("initialStock") != null && Values.number(row, "initialStock", 0) != initial) {
                out.anomaly("stock-not-conserved", subject, subject + " was set up with " + initial + " units but its stock "
                        + "row says it started with " + Values.number(row, "initialStock", 0), at);
            }
            conserved(out, subject, initial, soldInSale.getOrDefault(id, 0L), stock, at);
            Long inRedis = redis.get(id);
            if (!fastPath) {
                continue;
            }
            if (inRedis == null) {
                out.anomaly("redis-drift", subject, subject + " has stock " + stock + " in the database and none in Redis", at);
            } else if (inRedis != stock) {
                out.anomaly("redis-drift", subject, subject + " has stock " + inRedis + " in Redis and " + stock
                        + " in the database", at);
            }
        }

        out.count("userProducts", perUserProduct.size());
        long max = setup.map(s -> Values.number(s.value(), "maxUnitsPerProduct", -1)).orElse(-1L);
        if (max >= 0) {
            perUserProduct.forEach((pair, units) -> {
                if (units > max) {
                    String[] parts = pair.split("\u0000", 2);
                    out.anomaly("over-product-limit", parts[0], "user " + parts[0] + " holds " + units + " units of product "
                            + parts[1] + " in live orders, more than the " + max + " allowed", at);
                }
            });
        }
        return out.result();
    }

    private static void conserved(Findings out, String subject, long initial, long sold, long stock, List<Long> at) {
        if (initial != sold + stock) {
            out.anomaly("stock-not-conserved", subject, subject + " started with " + initial + " but live orders hold "
                    + sold + " and " + stock + " are left (" + (sold + stock) + ")", at);
        }
        if (stock < 0) {
            out.anomaly("negative-stock", subject, subject + " has stock " + stock, at);
        }
    }
}
