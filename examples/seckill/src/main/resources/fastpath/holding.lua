-- What this Redis holds of one buyer in one sale, read at one instant: the sale's epoch and the
-- buyer's mark. Read apart, the two could come from two servers (a Redis that died between the
-- reads and came back empty), which makes a queued reservation look neither queued nor lost.
-- KEYS: epoch, buyers
-- ARGV: user
-- Returns {epoch or nil, mark or nil}
return {redis.call('GET', KEYS[1]) or false, redis.call('HGET', KEYS[2], ARGV[1]) or false}
