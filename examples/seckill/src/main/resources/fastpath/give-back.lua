-- A cancelled (or timed-out) order gives its unit back to the Redis stock exactly once: the
-- returned set remembers the order, so a redelivered message, or one the reconciler already
-- accounted for, changes nothing. Frees the buyer's mark when it is this order's.
-- KEYS: epoch, stock, buyers, version, returned
-- ARGV: orderNo, productId, quantity, userId, reservation id (or '')
if not redis.call('GET', KEYS[1]) then
  return -1
end
local given = 0
if redis.call('SADD', KEYS[5], 'o:' .. ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[2], ARGV[2], tonumber(ARGV[3]))
  given = 1
end
local mark = redis.call('HGET', KEYS[3], ARGV[4])
if mark and (mark == ARGV[5] or mark == 'o:' .. ARGV[1]) then
  redis.call('HDEL', KEYS[3], ARGV[4])
end
redis.call('INCR', KEYS[4])
return given
