-- wrk script: every connection calls the URL as fast as it can (SampleOutageLoadTests: a
-- rate-limited endpoint while the test stops and restarts Redis under it).
function done(summary, latency, requests)
  -- the totals of every thread; refused calls are the 429s
  io.write(string.format("requests: %d, non-2xx/3xx: %d\n", summary.requests, summary.errors.status))
end
