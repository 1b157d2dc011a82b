-- One purchase, decided atomically with its idempotency record, its one-time token and its request
-- window (RedisAtomicExecutor runs this effect in the same script): the buyer's one-per-sale mark,
-- the stock decrement (never below zero), the reservation queued on the sale's stream and the 202
-- answer that is stored and replayed, all or nothing.
-- KEYS: epoch, stock, buyers, queue, version
-- (A purchase Redis runs after its caller gave up on it, a paused server say, never gets here: the
-- library's part of the script checks the call's deadline first.)
-- ARGV: productId, quantity, userId, reservation suffix, activityId
-- Answers {'complete', 202, body, headers...} | {'decline', 'DUPLICATE', the buyer's mark} |
--         {'decline', 'SOLD_OUT'} | {'decline', 'NO_PRODUCT'} | {'decline', 'NOT_LOADED'}
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  return {'decline', 'NOT_LOADED'}
end
local existing = redis.call('HGET', KEYS[3], ARGV[3])
if existing then
  return {'decline', 'DUPLICATE', existing}
end
local left = tonumber(redis.call('HGET', KEYS[2], ARGV[1]))
if not left then
  return {'decline', 'NO_PRODUCT'}
end
local quantity = tonumber(ARGV[2])
if left < quantity then
  return {'decline', 'SOLD_OUT'}
end
redis.call('HINCRBY', KEYS[2], ARGV[1], -quantity)
local id = ARGV[5] .. '-' .. epoch .. '-' .. ARGV[3] .. '-' .. ARGV[4]
redis.call('HSET', KEYS[3], ARGV[3], id)
redis.call('XADD', KEYS[4], '*', 'r', id, 'u', ARGV[3], 'p', ARGV[1], 'q', ARGV[2])
redis.call('INCR', KEYS[5])
return {'complete', 202, '{"reservationId":"' .. id .. '","status":"QUEUED","orderNo":null,"reason":null}',
  'Content-Type', 'application/json', 'Location', '/api/seckill/reservations/' .. id}
