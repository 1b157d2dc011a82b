-- After a batch is decided in the database: each failed reservation that still holds a unit of this
-- Redis (same epoch) gives it back once (the returned set remembers it) and frees its buyer's mark;
-- then the batch leaves the queue.
-- KEYS: epoch, stock, buyers, queue, version, returned
-- ARGV: group, n stream ids, stream ids..., then per failure: reservation id, epoch, user, product, quantity
local epoch = redis.call('GET', KEYS[1])
local n = tonumber(ARGV[2])
local returned = 0
for i = 3 + n, #ARGV, 5 do
  local id = ARGV[i]
  if epoch == ARGV[i + 1] and redis.call('SADD', KEYS[6], 'r:' .. id) == 1 then
    redis.call('HINCRBY', KEYS[2], ARGV[i + 3], tonumber(ARGV[i + 4]))
    returned = returned + 1
  end
  if redis.call('HGET', KEYS[3], ARGV[i + 2]) == id then
    redis.call('HDEL', KEYS[3], ARGV[i + 2])
  end
end
if n > 0 then
  local ids = {}
  for i = 3, 2 + n do
    table.insert(ids, ARGV[i])
  end
  redis.call('XACK', KEYS[4], ARGV[1], unpack(ids))
  redis.call('XDEL', KEYS[4], unpack(ids))
end
redis.call('INCR', KEYS[5])
return returned
