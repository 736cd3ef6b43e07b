-- wrk script: every connection asks for the campaign's offer as fast as it can
-- (the regions profile's `offers` limit, 20 a second across the regions).
function done(summary, latency, requests)
  -- the totals of every thread; refused calls are the 429s
  io.write(string.format("requests: %d, non-2xx/3xx: %d\n", summary.requests, summary.errors.status))
end
