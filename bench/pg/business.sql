\set id random(1, 1000000000)
BEGIN;
INSERT INTO bench_orders VALUES (:client_id || '-' || :id || '-' || random(), 'phone', 1) ON CONFLICT DO NOTHING;
COMMIT;
