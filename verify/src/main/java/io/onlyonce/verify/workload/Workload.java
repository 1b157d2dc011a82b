package io.onlyonce.verify.workload;

import io.onlyonce.verify.history.HistoryWriter;
import io.onlyonce.verify.workload.Recorder.Completion;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The clients: each process is one user placing regular orders by business id (retrying on
 * timeouts, 5xx and lost connections with the same key, sometimes with an altered body, sometimes
 * through the lossy proxy), paying them (notices sent twice and late, now and then a second
 * distinct payment), cancelling some, and buying in the flash sales with one-time tokens (double
 * clicks from a second process). Every choice comes from a {@link Random} seeded per process.
 */
public final class Workload {

    /** The unpaid-orders cap the instances run with: out of the way (a fifth of the orders stay unpaid). */
    public static final int MAX_UNPAID = 1_000_000;
    /** The per-user units cap of one product the instances run with. */
    public static final int MAX_UNITS_PER_PRODUCT = 100_000;

    private static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    private static final int ORDER_ATTEMPTS = 10;
    private static final int PAY_ATTEMPTS = 20;

    /**
     * A logged-in user.
     *
     * @param name the user name
     * @param id the user id
     * @param token the access token
     */
    public record User(String name, long id, String token) {
    }

    /**
     * A product of regular orders.
     *
     * @param id its id
     * @param stock its initial stock
     * @param price its price (two decimals)
     */
    public record Product(long id, int stock, String price) {
    }

    /**
     * A flash sale.
     *
     * @param id the activity id
     * @param productId its product
     * @param stock its initial stock
     * @param price its price (two decimals)
     */
    public record Sale(long id, long productId, int stock, String price) {
    }

    private final Api api;
    private final Recorder recorder;
    private final long seed;
    private final List<User> users;
    private final List<Product> products;
    private final List<Sale> sales;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final List<String> crashed = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Map<String, String> reservations = new ConcurrentHashMap<>();
    private final ExecutorService threads;
    private final List<Future<?>> running = new ArrayList<>();
    private volatile long startedNanos = System.nanoTime();

    public Workload(Api api, HistoryWriter history, long seed, List<User> users, List<Product> products, List<Sale> sales) {
        this.api = api;
        this.recorder = new Recorder(history);
        this.seed = seed;
        this.users = List.copyOf(users);
        this.products = List.copyOf(products);
        this.sales = List.copyOf(sales);
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "client");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts one client process per user. */
    public void start() {
        startedNanos = System.nanoTime();
        for (int i = 0; i < users.size(); i++) {
            Client client = new Client(i, users.get(i));
            running.add(threads.submit(() -> {
                try {
                    client.run();
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    crashed.add(client.process + ": " + e);
                }
                return null;
            }));
        }
    }

    /** Asks every client to finish its current intent (and its late notices) and waits for them. */
    public void stop(long timeoutSeconds) throws InterruptedException {
        stopping.set(true);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        for (Future<?> f : running) {
            try {
                f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                f.cancel(true);
            }
        }
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
    }

    /** The clients that failed (a bug of the harness, not of the system): the run then cannot vouch for itself. */
    public List<String> crashed() {
        return List.copyOf(crashed);
    }

    /** Every reservation a client was answered, with its buyer's access token. */
    public Map<String, String> reservations() {
        return Map.copyOf(reservations);
    }

    /** One client process and its double-click companion. */
    private final class Client {

        private final String process;
        private final String companion;
        private final User user;
        private final Random random;
        private final Deque<Map<String, Object>> late = new ArrayDeque<>();
        private final Set<Long> doneSales = new java.util.HashSet<>();
        private int payments;

        Client(int index, User user) {
            this.process = "c" + index;
            this.companion = "c" + (users.size() + index);
            this.user = user;
            this.random = new Random(seed * 1_000_003L + index);
        }

        void run() throws InterruptedException {
            while (!stopping.get() && !Thread.currentThread().isInterrupted()) {
                sendDueLateNotices(false);
                double r = random.nextDouble();
                Sale sale = sale();
                if (r < 0.25 && !doneSales.contains(sale.id())) {
                    purchase(sale);
                } else {
                    order();
                }
                Thread.sleep(20 + random.nextInt(100));
            }
            sendDueLateNotices(true);
        }

        /** The sale of the current minute (one opens each minute), now and then an earlier one. */
        private Sale sale() {
            int current = (int) Math.min(sales.size() - 1, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos) / 60);
            return random.nextDouble() < 0.8 ? sales.get(current) : sales.get(random.nextInt(current + 1));
        }

        // ------------------------------------------------------------------ orders

        private void order() throws InterruptedException {
            // the last product sells out: it is chosen one time in ten
            Product product = random.nextDouble() < 0.1 ? products.get(products.size() - 1)
                    : products.get(random.nextInt(products.size() - 1));
            int quantity = 1 + random.nextInt(3);
            String key = businessId();
            boolean lossyFirst = random.nextDouble() < 0.06;
            Completion placed = null;
            for (int attempt = 1; attempt <= ORDER_ATTEMPTS && placed == null; attempt++) {
                Completion c = orderAttempt(key, product.id(), quantity, attempt, false, attempt == 1 && lossyFirst);
                if (c.ok()) {
                    placed = c;
                } else if (!retriable(c)) {
                    return;
                } else {
                    backoff(attempt);
                }
            }
            if (placed == null) {
                return;
            }
            int attempt = ORDER_ATTEMPTS + 1;
            if (random.nextDouble() < 0.2) {
                // the same request again after its answer, past the gateway's 1 s window: a replay
                Thread.sleep(1_100 + random.nextInt(1_400));
                orderAttempt(key, product.id(), quantity, attempt++, false, false);
            }
            if (random.nextDouble() < 0.08) {
                // a retry whose body differs from the first one's: the key's fingerprint refuses it
                Thread.sleep(1_100 + random.nextInt(1_400));
                orderAttempt(key, product.id(), quantity + 1, attempt, true, false);
            }
            String orderNo = (String) placed.value().get("orderNo");
            String amount = (String) placed.value().get("amount");
            double next = random.nextDouble();
            if (next < 0.65) {
                pay(orderNo, amount, "T" + orderNo, false);
                if (random.nextDouble() < 0.08) {
                    pay(orderNo, amount, "T" + orderNo + "B", false);
                }
            } else if (next < 0.8) {
                cancel(orderNo);
            }
        }

        private Completion orderAttempt(String key, long productId, int quantity, int attempt, boolean altered, boolean lossy)
                throws InterruptedException {
            Map<String, Object> value = new LinkedHashMap<>();
            value.put("user", user.name());
            value.put("userId", user.id());
            value.put("key", key);
            value.put("productId", productId);
            value.put("quantity", quantity);
            value.put("attempt", attempt);
            value.put("altered", altered);
            value.put("lossy", lossy);
            String body = "{\"productId\":" + productId + ",\"quantity\":" + quantity + "}";
            return recorder.attempt(process, "order", value,
                    () -> api.post("/api/orders", user.token(), body, lossy, "Idempotency-Key", key),
                    (answer, v) -> {
                        v.put("orderNo", answer.text("orderNo"));
                        answer.money("amount").ifPresent(a -> v.put("amount", a));
                    });
        }

        // ---------------------------------------------------------------- payments

        private void pay(String orderNo, String amount, String tradeNo, boolean isLate) throws InterruptedException {
            Map<String, Object> notice = new LinkedHashMap<>();
            notice.put("orderNo", orderNo);
            notice.put("tradeNo", tradeNo);
            notice.put("amount", amount);
            boolean answered = false;
            for (int attempt = 1; attempt <= PAY_ATTEMPTS && !answered; attempt++) {
                Completion c = payAttempt(notice, attempt, isLate);
                if (c.ok()) {
                    answered = true;
                } else if (c.type() == io.onlyonce.verify.history.OpType.FAIL && c.status() != 429) {
                    return;
                } else {
                    backoff(attempt);
                }
            }
            if (answered && !isLate && random.nextDouble() < 0.3) {
                Map<String, Object> repeat = new LinkedHashMap<>(notice);
                repeat.put("due", System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_000 + random.nextInt(10_000)));
                late.add(repeat);
            }
            payments++;
        }

        private Completion payAttempt(Map<String, Object> notice, int attempt, boolean isLate) throws InterruptedException {
            Map<String, Object> value = new LinkedHashMap<>(notice);
            value.put("attempt", attempt);
            value.put("late", isLate);
            String body = "{\"outTradeNo\":\"" + notice.get("orderNo") + "\",\"amount\":" + notice.get("amount")
                    + ",\"tradeNo\":\"" + notice.get("tradeNo") + "\"}";
            String signature = api.sign(body);
            return recorder.attempt(process, "pay", value,
                    () -> api.post("/api/payments/callback", null, body, false, "X-Signature", signature),
                    (answer, v) -> {
                        String outcome = answer.text("outcome");
                        boolean duplicate = "true".equals(answer.text("duplicate"));
                        v.put("outcome", outcome);
                        v.put("result", duplicate ? "REPEATED" : "PAID".equals(outcome) ? "PAID"
                                : "CANCELLED".equals(answer.text("status")) ? "CANCELLED" : "REFUND");
                    });
        }

        private void sendDueLateNotices(boolean all) throws InterruptedException {
            while (!late.isEmpty() && (all || (long) late.peek().get("due") <= System.nanoTime())) {
                Map<String, Object> notice = new LinkedHashMap<>(late.poll());
                notice.remove("due");
                pay((String) notice.get("orderNo"), (String) notice.get("amount"), (String) notice.get("tradeNo"), true);
            }
        }

        // ------------------------------------------------------------------ cancels

        private void cancel(String orderNo) throws InterruptedException {
            for (int attempt = 1; attempt <= ORDER_ATTEMPTS; attempt++) {
                Map<String, Object> value = new LinkedHashMap<>();
                value.put("user", user.name());
                value.put("userId", user.id());
                value.put("orderNo", orderNo);
                value.put("attempt", attempt);
                Completion c = recorder.attempt(process, "cancel", value,
                        () -> api.post("/api/orders/" + orderNo + "/cancel", user.token(), null, false),
                        (answer, v) -> v.put("orderStatus", answer.text("status")));
                if (c.ok() || !retriable(c)) {
                    return;
                }
                backoff(attempt);
            }
        }

        // --------------------------------------------------------------- flash sale

        private void purchase(Sale sale) throws InterruptedException {
            String token = null;
            for (int attempt = 1; attempt <= 5 && token == null; attempt++) {
                Map<String, Object> value = new LinkedHashMap<>();
                value.put("user", user.name());
                value.put("userId", user.id());
                value.put("activity", sale.id());
                value.put("attempt", attempt);
                Completion c = recorder.attempt(process, "token", value,
                        () -> api.post("/api/seckill/activities/" + sale.id() + "/tokens", user.token(), null, false),
                        (answer, v) -> v.put("token", answer.text("token")));
                if (c.ok()) {
                    token = (String) c.value().get("token");
                } else if (!retriable(c)) {
                    doneSales.add(sale.id());
                    return;
                } else {
                    backoff(attempt);
                }
            }
            if (token == null) {
                return;
            }
            String theToken = token;
            Future<?> second = null;
            if (random.nextDouble() < 0.3) {
                // half the second clicks come at once (the gateway's 1 s window answers them), half
                // after it, when only the token stops them
                long delay = random.nextBoolean() ? random.nextInt(300) : 1_100 + random.nextInt(900);
                second = threads.submit(() -> {
                    Thread.sleep(delay);
                    purchaseAttempt(companion, sale, theToken, 2, 1, false);
                    return null;
                });
            }
            boolean lossyFirst = random.nextDouble() < 0.15;
            for (int attempt = 1; attempt <= ORDER_ATTEMPTS; attempt++) {
                Completion c = purchaseAttempt(process, sale, theToken, 1, attempt, attempt == 1 && lossyFirst);
                if (c.ok()) {
                    doneSales.add(sale.id());
                    break;
                }
                Object first = c.value().get("firstReservationId");
                if (first != null) {
                    // the token was used: the answer says which reservation it made
                    reservations.put(first.toString(), user.token());
                    doneSales.add(sale.id());
                    break;
                }
                if (!retriable(c)) {
                    String problem = c.problem();
                    if (problem != null && !problem.startsWith("idempotency-token")) {
                        doneSales.add(sale.id());
                    }
                    break;
                }
                backoff(attempt);
            }
            if (second != null) {
                try {
                    second.get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    second.cancel(true);
                }
            }
        }

        private Completion purchaseAttempt(String who, Sale sale, String token, int click, int attempt, boolean lossy)
                throws InterruptedException {
            Map<String, Object> value = new LinkedHashMap<>();
            value.put("user", user.name());
            value.put("userId", user.id());
            value.put("activity", sale.id());
            value.put("token", token);
            value.put("click", click);
            value.put("attempt", attempt);
            value.put("lossy", lossy);
            Completion c = recorder.attempt(who, "purchase", value,
                    () -> api.post("/api/seckill/activities/" + sale.id() + "/orders", user.token(), "{\"quantity\":1}", lossy,
                            "Idempotency-Token", token),
                    (answer, v) -> {
                        String reservation = answer.text("reservationId");
                        if (reservation != null) {
                            v.put("reservationId", reservation);
                        }
                        String orderNo = answer.text("orderNo");
                        if (orderNo != null) {
                            v.put("orderNo", orderNo);
                        }
                    });
            Object reservation = c.value().get("reservationId");
            if (c.ok() && reservation != null) {
                reservations.put(reservation.toString(), user.token());
            }
            return c;
        }

        // ------------------------------------------------------------------ helpers

        private boolean retriable(Completion c) {
            if (c.type() == io.onlyonce.verify.history.OpType.INFO) {
                return true;
            }
            String problem = c.problem();
            return c.status() == 429 || "idempotency-request-in-progress".equals(problem) || "order-conflict".equals(problem);
        }

        private void backoff(int attempt) throws InterruptedException {
            long base = Math.min(3_000, 250L << Math.min(attempt - 1, 4));
            Thread.sleep(base / 2 + random.nextInt((int) base));
        }

        private String businessId() {
            StringBuilder suffix = new StringBuilder();
            for (int i = 0; i < 6; i++) {
                suffix.append(ALNUM.charAt(random.nextInt(ALNUM.length())));
            }
            return "u" + user.id() + "_" + System.currentTimeMillis() + "_" + suffix;
        }
    }

    /** Money with two decimals. */
    static String money(BigDecimal value) {
        return value.setScale(2, java.math.RoundingMode.HALF_UP).toPlainString();
    }
}
