-- Loads a sale into Redis from one database snapshot when Redis does not hold it (first start,
-- or Redis restarted without persistence / flushed): stock per product, the buyers holding a live
-- order, and the cancelled orders whose unit the snapshot's stock already holds. A new epoch marks
-- every reservation made from here on. Does nothing when another instance loaded it first.
-- KEYS: epoch, stock, buyers, queue, version, returned
-- ARGV: new epoch, group, n products, (product, stock)..., n buyers, (user, mark)..., cancelled orderNos...
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[6])
local i = 3
local products = tonumber(ARGV[i])
for k = 1, products do
  redis.call('HSET', KEYS[2], ARGV[i + 2 * k - 1], ARGV[i + 2 * k])
end
i = i + 2 * products + 1
local buyers = tonumber(ARGV[i])
for k = 1, buyers do
  redis.call('HSET', KEYS[3], ARGV[i + 2 * k - 1], ARGV[i + 2 * k])
end
i = i + 2 * buyers + 1
for k = i, #ARGV do
  redis.call('SADD', KEYS[6], 'o:' .. ARGV[k])
end
redis.pcall('XGROUP', 'CREATE', KEYS[4], ARGV[2], '0', 'MKSTREAM')
redis.call('INCR', KEYS[5])
redis.call('SET', KEYS[1], ARGV[1])
return 1
