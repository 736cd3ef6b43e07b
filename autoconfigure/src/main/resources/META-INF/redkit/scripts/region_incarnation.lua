-- This region's incarnation names the redis-server process that set it (its run id): a
-- Redis started again since (on an older snapshot or AOF, or a replica promoted in its
-- place) does not hold it, so the region changes no budget, lends nothing and ships
-- nothing until it took its slots back from the peers (region_recover), as after a loss.
-- Without this, a Redis back on older data kept spending from its older slot until a peer
-- noticed, spends it had already shipped included.
local function runId()
  return string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
end

local function holdsIncarnation(key)
  local incarnation = redis.call('GET', key)
  return incarnation ~= false and string.match(incarnation, '@(%w+)$') == runId()
end
