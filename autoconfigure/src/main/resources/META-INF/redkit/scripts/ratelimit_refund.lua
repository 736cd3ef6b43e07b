-- Shared by the refund scripts of the rate-limit algorithms (included with --#include): each one
-- gives back what its decision script took, when another cluster slot refused the same call or did
-- not answer it.
-- KEYS: the identifiers' keys that were charged, then the refund's marker (same slot); ARGV[1..3]:
-- see ratelimit_windows; ARGV[4]: unused (empty); ARGV[5]: how long the marker is kept, in ms;
-- ARGV[6]: the Redis time of the decision, in ms; ARGV[7..]: the algorithm's own arguments.
-- What the decision took is found by its time. A retried refund finds its marker and changes
-- nothing: it is applied once. A refund script returns 1 when this call gave back, 0 when an
-- earlier one had. A key that expired is left alone.
--#include ratelimit_windows

-- Takes the refund's marker: false when an earlier attempt has it, and so gave back already.
local function take_refund_marker()
  return call('SET', KEYS[#KEYS], '1', 'NX', 'PX', ARGV[5]) and true or false
end

-- Gives back on every charged key that still holds records of four doubles per window:
-- give_back(state, r, limit, period, cost, decided) changes the numbers of the record at r in
-- place, for every window of the policy that is kept; the records are written back with their
-- expiry.
local function refund_records(give_back)
  if not take_refund_marker() then
    return 0
  end
  local arguments, cost, n, format = read_arguments()
  local decided = tonumber(ARGV[6])
  for k = 1, #KEYS - 1 do
    local state, records = read_windows(KEYS[k], format, n, arguments)
    if records > 0 then
      for j = 1, n do
        local limit, period = arguments[2 * j], arguments[2 * j + 1]
        local r = find_window(state, records, period)
        if r then give_back(state, r, limit, period, cost, decided) end
      end
      write_windows(KEYS[k], '<' .. string.rep('dddd', records), state, 4 * records, nil)
    end
  end
  return 1
end
