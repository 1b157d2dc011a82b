package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.order.Order;
import io.onlyonce.example.seckill.order.OrderNumbers;
import io.onlyonce.example.seckill.order.OrderStatus;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Writes a batch of reservations as orders, in one transaction: one multi-row insert of decisions,
 * one of orders and one stock UPDATE per product. Idempotent by reservation id: a reservation
 * decided before (a redelivered batch, one a dead consumer left) keeps its first decision and
 * writes nothing again. The stock UPDATE keeps the optimistic lock (never below zero): when Redis
 * sold more than the database has (after Redis lost its data), the batch is rolled back and written
 * one reservation at a time, and those the database has no unit for fail as sold out.
 */
public class ReservationWriter {

    /** Thrown inside the batch transaction to roll it back when the database lacks the units. */
    private static final class NotEnoughStock extends RuntimeException {
        NotEnoughStock() {
            super(null, null, false, false);
        }
    }

    private final ReservationRepository repository;
    private final OrderNumbers numbers;
    private final TransactionTemplate transactions;
    private final Clock clock;

    public ReservationWriter(ReservationRepository repository, OrderNumbers numbers, TransactionTemplate transactions,
            Clock clock) {
        this.repository = repository;
        this.numbers = numbers;
        this.transactions = transactions;
        this.clock = clock;
    }

    /** Decides every reservation of {@code batch} (all of one sale) and returns the decisions. */
    public List<Decision> write(long activityId, List<QueuedReservation> batch) {
        try {
            return transactions.execute(status -> decide(activityId, batch));
        } catch (NotEnoughStock e) {
            List<Decision> decisions = new ArrayList<>(batch.size());
            for (QueuedReservation reservation : batch) {
                try {
                    decisions.addAll(transactions.execute(status -> decide(activityId, List.of(reservation))));
                } catch (NotEnoughStock soldOut) {
                    decisions.add(transactions.execute(status -> soldOut(activityId, reservation)));
                }
            }
            return decisions;
        }
    }

    private Decision soldOut(long activityId, QueuedReservation reservation) {
        repository.planForTheseValues();
        repository.insertDecision(reservation.id(), reservation.productId(), reservation.quantity(), Decision.SOLD_OUT,
                clock.millis());
        ReservationRepository.Row row = repository.find(reservation.id().toString()).orElseThrow();
        return new Decision(reservation, row.orderNo(), row.reason());
    }

    private List<Decision> decide(long activityId, List<QueuedReservation> batch) {
        repository.planForTheseValues();
        // one entry per reservation, in id order (the same lock order in every consumer)
        Map<String, QueuedReservation> byId = new TreeMap<>();
        batch.forEach(r -> byId.putIfAbsent(r.id().toString(), r));
        Map<String, ReservationRepository.Row> decided = repository.find(byId.keySet());

        List<QueuedReservation> open = byId.values().stream().filter(r -> !decided.containsKey(r.id().toString())).toList();
        Map<Long, BigDecimal> prices = repository.prices(activityId);
        Set<Long> live = new HashSet<>(repository.liveBuyers(activityId,
                open.stream().map(r -> r.id().userId()).distinct().toList(), prices.keySet()));
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);

        List<Decision> proposed = new ArrayList<>(open.size());
        Map<String, Order> orders = new LinkedHashMap<>();
        for (QueuedReservation r : open) {
            BigDecimal price = prices.get(r.productId());
            if (price == null || !live.add(r.id().userId())) {
                proposed.add(new Decision(r, null, price == null ? Decision.SOLD_OUT : Decision.LIVE_ORDER_EXISTS));
                continue;
            }
            Order order = new Order(numbers.next(), r.id().businessId(), r.id().userId(), r.productId(), activityId,
                    r.quantity(), price.multiply(BigDecimal.valueOf(r.quantity())), OrderStatus.UNPAID,
                    Order.liveKey(r.id().userId(), activityId, r.productId()), null, now, null, null);
            orders.put(r.id().toString(), order);
            proposed.add(new Decision(r, order.orderNo(), null));
        }
        repository.insertDecisions(proposed, activityId, now.toEpochMilli());

        // what stands now: ours, or what another decider (a consumer that took the same entry, the
        // status query of a lost reservation) recorded first
        Map<String, ReservationRepository.Row> rows = repository.find(byId.keySet());
        List<Order> toWrite = new ArrayList<>();
        for (Map.Entry<String, Order> e : orders.entrySet()) {
            ReservationRepository.Row row = rows.get(e.getKey());
            if (row != null && e.getValue().orderNo().equals(row.orderNo())) {
                toWrite.add(e.getValue());
            }
        }
        Set<String> written = repository.insertOrders(toWrite);
        List<String> refused = new ArrayList<>();
        Map<Long, Integer> units = new TreeMap<>();
        for (Order order : toWrite) {
            if (written.contains(order.orderNo())) {
                units.merge(order.productId(), order.quantity(), Integer::sum);
            } else {
                refused.add(order.businessId().substring(4));
            }
        }
        repository.markFailed(refused, Decision.LIVE_ORDER_EXISTS);
        for (Map.Entry<Long, Integer> take : units.entrySet()) {
            if (!repository.takeStock(activityId, take.getKey(), take.getValue())) {
                throw new NotEnoughStock();
            }
        }

        Map<String, ReservationRepository.Row> finalRows = refused.isEmpty() ? rows : repository.find(byId.keySet());
        Map<String, Decision> decisions = new HashMap<>();
        for (QueuedReservation r : byId.values()) {
            ReservationRepository.Row row = finalRows.get(r.id().toString());
            if (row == null) {
                throw new IllegalStateException("reservation " + r.id() + " has no decision after it was recorded");
            }
            decisions.put(r.id().toString(), new Decision(r, row.orderNo(), row.reason()));
        }
        // every queued entry (also a second delivery of one reservation) gets its decision
        return batch.stream().map(r -> new Decision(r, decisions.get(r.id().toString()).orderNo(),
                decisions.get(r.id().toString()).reason())).toList();
    }
}
