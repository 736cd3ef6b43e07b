-- Records a step as done with its result; the first completion wins.
-- KEYS[1] state hash, KEYS[2] results hash (see idempotency_claim.lua)
-- ARGV[1] step, ARGV[2] result JSON, ARGV[3] ttl ms when the claim is gone, ARGV[4] fingerprint when the
-- claim is gone, ARGV[5] token of the completing claim ('' = complete whichever claim holds the step)
-- Returns 1 when recorded, 0 when the step was already done (by the token's own claim when a token is
-- given: a retry of a completion Redis applied but whose answer was lost), -1 when the token's claim no
-- longer holds the step (taken over or completed by another delivery): nothing is recorded.
-- A completion by a claim records "d#<token>|<fingerprint>" so that its retry knows its own record.
--#include core_numbers
local step = ARGV[1]
local current = redis.call('HGET', KEYS[1], step)
local ttl = tonumber(ARGV[3])
local fingerprint = ARGV[4]
local token = ARGV[5] or ''
if current then
  if string.sub(current, 1, 1) == 'd' then
    return (token == '' or string.match(current, '^d#([^|]*)|') == token) and 0 or -1
  end
  local claimTtl, claimToken, claimFingerprint = string.match(current, '^p|%d+|(%d+)|([^|]*)|(.*)$')
  if token ~= '' and claimToken ~= token then
    return -1
  end
  ttl = tonumber(claimTtl)
  fingerprint = claimFingerprint
elseif token ~= '' then
  return -1
end
redis.call('HSET', KEYS[1], step, ((token == '') and 'd|' or 'd#' .. token .. '|') .. fingerprint)
redis.call('HSET', KEYS[2], step, ARGV[2])
-- the operation lives as long as its longest-lived step
local keep = math.max(ttl, redis.call('PTTL', KEYS[1]))
redis.call('PEXPIRE', KEYS[1], exact(keep))
redis.call('PEXPIRE', KEYS[2], exact(keep))
return 1
