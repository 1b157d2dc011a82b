-- One purchase, decided atomically: the buyer's one-per-sale mark, the stock decrement (never below
-- zero) and the reservation queued on the sale's stream, all or nothing.
-- KEYS: epoch, stock, buyers, queue, version
-- ARGV: productId, quantity, userId, reservation suffix, activityId
-- Returns {'RESERVED', id} | {'DUPLICATE', id of the buyer's reservation} | {'SOLD_OUT'} |
--         {'NO_PRODUCT'} | {'NOT_LOADED'}
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  return {'NOT_LOADED'}
end
local existing = redis.call('HGET', KEYS[3], ARGV[3])
if existing then
  return {'DUPLICATE', existing}
end
local left = tonumber(redis.call('HGET', KEYS[2], ARGV[1]))
if not left then
  return {'NO_PRODUCT'}
end
local quantity = tonumber(ARGV[2])
if left < quantity then
  return {'SOLD_OUT'}
end
redis.call('HINCRBY', KEYS[2], ARGV[1], -quantity)
local id = ARGV[5] .. '-' .. epoch .. '-' .. ARGV[3] .. '-' .. ARGV[4]
redis.call('HSET', KEYS[3], ARGV[3], id)
redis.call('XADD', KEYS[4], '*', 'r', id, 'u', ARGV[3], 'p', ARGV[1], 'q', ARGV[2])
redis.call('INCR', KEYS[5])
return {'RESERVED', id}
