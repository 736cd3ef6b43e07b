-- Shared by the rate-limit scripts (included with --#include): their arguments and their reply.
--
-- Arguments: ARGV[1] the policy's numbers as little-endian doubles: cost, then limit_j and
-- period_ms_j of each window; ARGV[2] the struct format of ARGV[1]; ARGV[3] the struct format of
-- an identifier's records when they match the policy. Packed numbers cost Redis one struct.unpack
-- instead of a string-to-number conversion each.
--
-- Reply: allowed (1 or 0), remaining, retry_after_ms, reset_after_ms (until the limiting window
-- gives back a permit; 0 when it holds none), the limiting window (0-based), the Redis time of
-- the decision in ms and the windows that refused (bit j - 1 for window j), packed as seven
-- little-endian doubles: cheaper for Redis than an array reply. The time lets a give-back find
-- what the decision took.

--#include core_numbers
local call, struct_pack, struct_unpack = redis.call, struct.pack, struct.unpack

-- Whether the call is charged whatever the windows hold: a negative cost charges its amount, the
-- excess of a call settled above what it took (see read_arguments).
local forced = false

-- The policy's numbers (cost, then limit and period of each window), the cost, how many windows
-- and the format of records that match them.
local function read_arguments()
  local numbers = { struct_unpack(ARGV[2], ARGV[1]) }
  local cost = numbers[1]
  if cost < 0 then
    cost, forced = -cost, true
  end
  -- struct.unpack also returns the position after the last number
  return numbers, cost, (#numbers - 2) / 2, ARGV[3]
end

-- The reply: seven little-endian doubles; `refused_mask` has bit j - 1 set for each window j that
-- refused the call.
local function reply_of(allowed, remaining, retry, reset, limiting, now, refused_mask)
  return struct_pack('<ddddddd', allowed, remaining, retry, reset, limiting, now, refused_mask)
end
