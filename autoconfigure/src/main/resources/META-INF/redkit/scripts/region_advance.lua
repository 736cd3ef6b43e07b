-- Moves the position shipped to a peer forward, never back: several instances of one region
-- may ship the same outbox (harmless, apply is idempotent) and finish in any order.
-- KEYS[1] the shipped position ("<stream id>|<sequence>"), no TTL: it lives as long as the outbox
-- ARGV[1] the new position
-- Returns 1 when it moved, 0 when a position as far or further was already recorded
local old = redis.call('GET', KEYS[1])
if old then
  local oldSeq = tonumber(string.match(old, '|(%d+)$'))
  local newSeq = tonumber(string.match(ARGV[1], '|(%d+)$'))
  if newSeq <= oldSeq then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
