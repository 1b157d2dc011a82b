-- A consumer's next batch: first the reservations another consumer took and left unacknowledged
-- for longer than the claim time (it died), then new ones. Creates the consumer group when Redis
-- lost it. Returns a flat list: stream id, reservation id, user, product, quantity, ...
-- KEYS: queue
-- ARGV: group, consumer, claim idle milliseconds, count
redis.pcall('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
local count = tonumber(ARGV[4])
local out = {}
local function add(entries)
  for _, entry in ipairs(entries) do
    local fields = entry[2]
    if fields then
      local f = {}
      for i = 1, #fields, 2 do
        f[fields[i]] = fields[i + 1]
      end
      table.insert(out, entry[1])
      table.insert(out, f['r'])
      table.insert(out, f['u'])
      table.insert(out, f['p'])
      table.insert(out, f['q'])
    end
  end
end
local claimed = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], '0-0', 'COUNT', count)
add(claimed[2])
local room = count - #out / 5
if room > 0 then
  local fresh = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', room, 'STREAMS', KEYS[1], '>')
  if fresh then
    add(fresh[1][2])
  end
end
return out
