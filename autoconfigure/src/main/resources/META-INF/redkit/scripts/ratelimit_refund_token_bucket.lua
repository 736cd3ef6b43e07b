-- Gives back what ratelimit_token_bucket took (see ratelimit_refund): the theoretical arrival time
-- moves back one interval per token.
--#include ratelimit_refund
return refund_records(function(state, r, limit, period, cost)
  state[r + 1] = state[r + 1] - cost * period / limit
end)
