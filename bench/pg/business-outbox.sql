\set id random(1, 1000000000)
BEGIN;
INSERT INTO bench_orders VALUES (:client_id || '-' || :id || '-' || random(), 'phone', 1) ON CONFLICT DO NOTHING;
INSERT INTO onlyonce_message_log (id, exchange, routing_key, payload, headers, status, attempts, next_attempt_at_ms, created_at_ms) VALUES (:client_id || '-' || :id || '-' || random(), 'orders', 'order.created', '{"orderId":"x","item":"phone","quantity":1}', '{}', 'PREPARED', 0, (extract(epoch from clock_timestamp())*1000)::bigint, (extract(epoch from clock_timestamp())*1000)::bigint) ON CONFLICT DO NOTHING;
COMMIT;
