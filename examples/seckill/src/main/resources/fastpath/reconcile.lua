-- Sets the Redis stock to the database's, when nothing moved in between: the epoch and the version
-- (every script that changes stock bumps it) are still the ones read before the database snapshot,
-- and no reservation is queued or being written. The snapshot's cancelled orders are marked returned
-- (their unit is in the database's stock), so their messages, arriving late, change nothing.
-- KEYS: epoch, stock, queue, version, returned
-- ARGV: epoch, version, n products, (product, stock)..., cancelled orderNos...
-- Returns the number of units corrected, or -1 when something moved (try again later).
if redis.call('GET', KEYS[1]) ~= ARGV[1] or (redis.call('GET', KEYS[4]) or '0') ~= ARGV[2]
    or redis.call('XLEN', KEYS[3]) > 0 then
  return -1
end
local corrected = 0
local products = tonumber(ARGV[3])
for k = 1, products do
  local product = ARGV[3 + 2 * k - 1]
  local want = tonumber(ARGV[3 + 2 * k])
  local have = tonumber(redis.call('HGET', KEYS[2], product) or '-1')
  if have ~= want then
    redis.call('HSET', KEYS[2], product, want)
    corrected = corrected + math.abs(want - math.max(have, 0))
  end
end
for k = 4 + 2 * products, #ARGV do
  redis.call('SADD', KEYS[5], 'o:' .. ARGV[k])
end
redis.call('INCR', KEYS[4])
return corrected
